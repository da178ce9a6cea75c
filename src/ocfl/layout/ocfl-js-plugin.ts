/**
 * `import 'siard-ocfl/ocfl-js-plugin'` makes `@ocfl/ocfl` (and so `@ocfl/ocfl-fs`) map ids with our
 * layouts, so a JavaScript repository built on it reads and writes the roots siard-ocfl makes:
 *
 * - 0006 and 0007 are stubs there (no `map`: every object of such a root is out of reach), and
 *   0010 and 0012 are not there at all;
 * - its 0003 lower-cases the escapes of the whole id (so "A" and "a" collide), never cuts long
 *   names and leaves !~*'() unescaped: its objects land where other OCFL tools do not look;
 * - its 0002 takes `..`, control characters and `ocfl_layout.json` as folder names, and its 0004
 *   keeps any configuration it is given; ours refuse what the extensions forbid, in one sentence.
 *
 * So every layout of ours replaces or joins theirs, one mapping for both libraries.
 *
 * How @ocfl/ocfl finds layouts (lib/extension.js, lib/storage.js): `OcflStorageLayout.register(cls)`
 * files a class under its static NAME and its class name; a storage asks
 * `OcflStorageLayout.class(name).create(config)` (a subclass of OcflStorageLayout is required),
 * then calls `map(id)` for an object's root (path.sep-separated, joined to the root), and at
 * create() writes `{extension: name, description}` to ocfl_layout.json and `config` to
 * extensions/<name>/config.json. Registering under the same NAME and class name replaces theirs.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { UsageError } from '../../errors.js';
import { ExtensionLayout, LAYOUT_0003_NAME, LAYOUT_NAMES, layoutDescription, ocflJsClassName } from './extensions.js';
import { loadIdDigest } from './id-digest.js';
import type { StorageLayout } from './storage-layout.js';

/** The part of @ocfl/ocfl's OcflStorageLayout instance that this adapter relies on. */
export interface OcflJsLayoutInstance {
  parameters: Record<string, unknown>;
}

/** The part of @ocfl/ocfl's OcflStorageLayout class that this adapter relies on. */
export interface OcflJsLayoutClass {
  new (config?: unknown, defaultConfig?: unknown): OcflJsLayoutInstance;
  register(extensionClass: unknown): void;
  class(name: string): unknown;
}

// The package has no type declarations; load it as the CommonJS module it is (the same instance
// @ocfl/ocfl-fs requires, when npm has installed one copy).
const require = createRequire(import.meta.url);
const { OcflStorageLayout } = require('@ocfl/ocfl') as { OcflStorageLayout: OcflJsLayoutClass };

// The short BLAKE2b digests need WebAssembly loaded once; do it now so that the synchronous
// constructor @ocfl/ocfl calls works for every algorithm of the OCFL registry.
await Promise.all(['blake2b-160', 'blake2b-256', 'blake2b-384'].map((name) => loadIdDigest(name)));

/** An @ocfl/ocfl storage layout class over one of ours. */
interface AdapterClass extends OcflJsLayoutClass {
  new (config?: unknown): OcflJsLayoutInstance & { readonly layout: StorageLayout; map(id: string): string };
}

/**
 * The adapter class for a layout: @ocfl/ocfl calls the constructor with a parsed config.json, a
 * partial configuration or nothing (the defaults), and expects NAME, DESCRIPTION, `config` (written
 * to config.json: ours is complete) and `map`.
 */
function adapter(extensionName: string): AdapterClass {
  const cls = class extends OcflStorageLayout {
    static get NAME(): string {
      return extensionName;
    }

    static get DESCRIPTION(): string {
      return layoutDescription(extensionName);
    }

    readonly layout: StorageLayout;

    constructor(config?: unknown) {
      super(undefined, undefined);
      this.layout = ExtensionLayout.create(extensionName, config ?? undefined);
      // @ocfl/ocfl reads parameters through get()/p; keep them in step with the real configuration.
      this.parameters = { ...this.layout.config };
    }

    /** Every parameter, so @ocfl/ocfl writes a complete config.json. */
    get config(): Record<string, unknown> {
      return { ...this.layout.config };
    }

    /** Object root of an id, in @ocfl/ocfl's convention (platform separator). */
    map(id: string): string {
      return this.layout.objectPath(id).split('/').join(path.sep);
    }

    /** The layout is fixed when made: a changed parameter would move every object. */
    set(param: string): never {
      throw new UsageError(
        `Extension ${extensionName.slice(0, 4)} layout parameters are fixed when the layout is created (tried to set "${param}").`,
      );
    }
  };
  // @ocfl/ocfl also files a layout under its class name: the same names as its own replace them.
  Object.defineProperty(cls, 'name', { value: ocflJsClassName(extensionName) });
  return cls as unknown as AdapterClass;
}

const ADAPTERS = LAYOUT_NAMES.map(adapter);
for (const cls of ADAPTERS) OcflStorageLayout.register(cls);

/** Extension 0003 for @ocfl/ocfl, mapping ids with siard-ocfl's layout. */
export const HashAndIdNTupleStorageLayout = ADAPTERS[LAYOUT_NAMES.indexOf(LAYOUT_0003_NAME)]!;

/** True when @ocfl/ocfl resolves every layout siard-ocfl implements to this plugin's adapter. */
export function isPluginActive(): boolean {
  return ADAPTERS.every((cls) => OcflStorageLayout.class((cls as unknown as { NAME: string }).NAME) === cls);
}
