/**
 * The worked examples of an OCFL community extension document, read from ../shared's copy of the
 * extensions (reference/ocfl-extensions/<name>.md; never copied into the repository): each
 * "### Example N" section's parameters (its ```json block; none: the defaults) and the rows of its
 * "#### Mappings" table, object id and object root path. The tables are hand-written Markdown and
 * not all well-formed (0007 and 0010 have rows without their last '|', one without the middle one),
 * so a row is read as: the id is the first cell (a `code` span or the text before the first '|' or
 * '`'), the path is the row's last `code` span; `\_` escapes are undone.
 */
import test from 'ava';
import { readFileSync } from 'node:fs';
import { UsageError } from '../../src/errors.js';
import { createLayoutByName } from '../../src/ocfl/layout/registry.js';
import { HAS_SHARED, reference, sharedTest } from './shared.js';

export interface ExtensionMapping {
  id: string;
  path: string;
}

export interface ExtensionExample {
  title: string;
  /** The example's prose, which says when its mappings are names file systems refuse. */
  prose: string;
  parameters: Record<string, unknown> | undefined;
  mappings: ExtensionMapping[];
}

export function extensionDocument(extensionName: string): string {
  return readFileSync(reference('ocfl-extensions', `${extensionName}.md`), 'utf8');
}

function unescapeMarkdown(text: string): string {
  return text.replace(/\\(.)/g, '$1');
}

/** One table row: the first cell and the last `code` span. */
function tableRow(line: string): { first: string; last: string } | undefined {
  const body = line.trim().replace(/^\|/, '');
  const spans = [...body.matchAll(/`([^`]*)`/g)].map((m) => m[1]);
  const firstCell = body.trimStart();
  let first: string;
  if (firstCell.startsWith('`')) first = spans[0];
  else {
    const ends = [firstCell.indexOf('|'), firstCell.indexOf('`')].filter((i) => i >= 0);
    first = unescapeMarkdown(firstCell.slice(0, Math.min(...ends)).trim());
  }
  const last = spans.at(-1);
  return last === undefined ? undefined : { first, last };
}

/** Rows of the first table after `heading` (header and '---' line skipped) in `text`. */
export function tableAfter(text: string, heading: string): string[] {
  const start = text.indexOf(heading);
  if (start < 0) return [];
  const lines = text.slice(start + heading.length).split('\n');
  const first = lines.findIndex((l) => l.trim().startsWith('|'));
  if (first < 0) return [];
  const rows: string[] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.trim().startsWith('|')) break;
    rows.push(line);
  }
  return rows;
}

export function extensionExamples(extensionName: string): ExtensionExample[] {
  const text = extensionDocument(extensionName);
  const sections = text.split(/^### (?=Example \d+)/m).slice(1);
  return sections.map((section) => {
    const title = section.slice(0, section.indexOf('\n')).trim();
    const json = /####\s*Parameters[\s\S]*?```json\n([\s\S]*?)```/.exec(section.split('#### Mappings')[0]);
    const mappings = tableAfter(section, '#### Mappings').flatMap((line) => {
      const row = tableRow(line);
      return row ? [{ id: row.first, path: row.last }] : [];
    });
    return {
      title,
      prose: section.split('####')[0],
      parameters: json ? (JSON.parse(json[1]) as Record<string, unknown>) : undefined,
      mappings,
    };
  });
}

/** The example says its names are not valid directory names (0002 Example 2, 0006 Example 3). */
function saysInvalidNames(example: ExtensionExample): boolean {
  return /invalid on unix/i.test(example.prose);
}

function shortTitle(id: string): string {
  return id.length > 48 ? `${id.slice(0, 48)}... (${id.length} characters)` : id;
}

/**
 * One test per mapping of every worked example of the extension: the layout made by the registry
 * from the example's parameters (as a config.json would give them) maps the id to the document's
 * path exactly, or, where the example says its names are invalid ones, refuses the id with a
 * UsageError before any path exists. Plus one test that the document still has the examples
 * counted here (`rowsPerExample`, read off the document), so that a parse that finds nothing fails.
 */
export function declareExampleTests(extensionName: string, rowsPerExample: number[]): void {
  const examples = HAS_SHARED ? extensionExamples(extensionName) : [];
  sharedTest(`${extensionName}: the document's examples, ${rowsPerExample.join('+')} mappings, are all read`, (t) => {
    t.deepEqual(
      examples.map((e) => e.mappings.length),
      rowsPerExample,
    );
  });
  for (const example of examples) {
    for (const { id, path } of example.mappings) {
      if (saysInvalidNames(example)) {
        test(`${extensionName} ${example.title}: ${shortTitle(id)} refused (the document: invalid names)`, async (t) => {
          const layout = await createLayoutByName(extensionName, example.parameters);
          const err = t.throws(() => layout.objectPath(id), { instanceOf: UsageError });
          t.is(err?.code, 'INVALID_OBJECT_ID');
          t.notRegex(err?.message ?? '', /\n/);
        });
      } else {
        test(`${extensionName} ${example.title}: ${shortTitle(id)} -> ${shortTitle(path)}`, async (t) => {
          const layout = await createLayoutByName(extensionName, example.parameters);
          t.is(layout.objectPath(id), path);
        });
      }
    }
  }
}
