/**
 * The layout a new storage root gets (`init --layout <name> [--layout-config <file>]`): a
 * registered name, a configuration as config.json holds it, and single parameters given one by one
 * (init's older --digest-algorithm, --tuple-size, --number-of-tuples). Everything is checked before
 * a root is created, so a refused choice writes nothing.
 */
import { UsageError } from '../../errors.js';
import { layoutConfigError } from './layout-config.js';
import { createLayoutByName } from './registry.js';
import { LAYOUT_0003_NAME } from './extensions.js';
import type { StorageLayout } from './storage-layout.js';

export interface LayoutChoice {
  /** A registered extension name; default: the configuration's extensionName, else 0003. */
  extensionName?: string;
  /** A parsed config.json (its extensionName, when given, must agree with `extensionName`). */
  configJson?: unknown;
  /** Where configJson came from, for messages (a file name). */
  configSource?: string;
  /** Single parameters, each with the option that gave it (for messages): they override configJson. */
  parameters?: ReadonlyArray<{ name: string; value: unknown; option: string }>;
}

function configOf(choice: LayoutChoice): Record<string, unknown> {
  const json = choice.configJson ?? {};
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new UsageError(
      `The layout configuration${choice.configSource ? ` ${choice.configSource}` : ''} must be a JSON object, not ${JSON.stringify(json)}.`,
      'INVALID_LAYOUT_CONFIG',
    );
  }
  return json as Record<string, unknown>;
}

/**
 * The layout chosen, every parameter checked by its extension. A parameter the extension does not
 * define is refused rather than ignored: a misspelt "tupelSize" would otherwise leave the default
 * in place and every object somewhere the user did not ask for.
 */
export async function chooseLayout(choice: LayoutChoice): Promise<StorageLayout> {
  const given = configOf(choice);
  const named = typeof given.extensionName === 'string' ? given.extensionName : undefined;
  const extensionName = choice.extensionName ?? named ?? LAYOUT_0003_NAME;
  const config: Record<string, unknown> = { extensionName, ...given };
  for (const p of choice.parameters ?? []) config[p.name] = p.value;
  const layout = await createLayoutByName(extensionName, config);
  const known = Object.keys(layout.config).filter((k) => k !== 'extensionName');
  const parameterList = known.length > 0 ? known.join(', ') : 'none';
  for (const p of choice.parameters ?? []) {
    if (!known.includes(p.name)) {
      throw layoutConfigError(extensionName, `${p.option} does not apply to ${extensionName} (its parameters: ${parameterList}).`);
    }
  }
  for (const key of Object.keys(given)) {
    if (key !== 'extensionName' && !known.includes(key)) {
      throw layoutConfigError(
        extensionName,
        `the configuration${choice.configSource ? ` ${choice.configSource}` : ''} gives "${key}", which is no parameter of ` +
          `${extensionName} (its parameters: ${parameterList}).`,
      );
    }
  }
  return layout;
}
