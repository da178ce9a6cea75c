/**
 * Writes README.md's performance table (issue 39) from the rows a bench run reported
 * (readme-rows.ts): one line per row, in the issue's order, between the two markers below. A row
 * measured in this run replaces its line; the others keep theirs, with the date and load they
 * were measured at. Run by bench/run.js after the benches; by hand:
 *
 *   node --import=tsx bench/readme-table.ts <rows.jsonl> [README.md]
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { ROW_KINDS, type MeasuredRow, type RowId } from './readme-rows.js';

export const TABLE_START = '<!-- bench-table:start (written by npm run bench: bench/readme-table.ts) -->';
export const TABLE_END = '<!-- bench-table:end -->';

const HEADER = ['| work | peer, same run | ours against the peer (throughput), load beside it | goal |', '|---|---|---|---|'];

/** The id a table line carries in its first cell (`<!-- row:export-sqlite -->`). */
const LINE_ID = /^\|\s*<!-- row:([a-z0-9-]+) -->/;

/** `|` inside a cell would end it. */
const cell = (text: string) => text.replace(/(?<!\\)\|/g, '\\|');

/** The table line of a measured row. */
export function rowLine(row: MeasuredRow): string {
  const kind = ROW_KINDS[row.id];
  const load = row.load.length > 1 ? `${Math.min(...row.load)}-${Math.max(...row.load)}` : String(row.load[0]);
  const peak = row.peakMb === undefined ? '' : `, peak ${Math.round(row.peakMb)} MB`;
  const when = row.date.replace('T', ' ');
  const figure = `**${row.ratio.toFixed(2)}x** at load ${load} (${cell(row.ours)} against ${cell(row.peer)}${peak}; ${when})`;
  const met = row.ratio >= row.goal ? 'met' : 'not met';
  const goal = `>= ${row.goal}x: ${met}${row.floor ? ` (floor: ${cell(row.floor)})` : ''}`;
  return `| <!-- row:${row.id} --> ${row.work ? cell(row.work) : kind.work} | ${kind.peer} | ${figure} | ${goal} |`;
}

function unmeasuredLine(id: RowId): string {
  const kind = ROW_KINDS[id];
  return `| <!-- row:${id} --> ${kind.work} | ${kind.peer} | not measured yet | >= ${kind.goal}x |`;
}

/** The README text with its table rewritten: `rows` replace their lines, the other lines stay. */
export function withTable(readme: string, rows: MeasuredRow[]): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`README.md has no performance table between "${TABLE_START}" and "${TABLE_END}".`);
  const old = new Map<string, string>();
  for (const line of readme.slice(start, end).split('\n')) {
    const id = LINE_ID.exec(line)?.[1];
    if (id) old.set(id, line);
  }
  const latest = new Map(rows.map((r) => [r.id, r]));
  const lines = (Object.keys(ROW_KINDS) as RowId[]).map((id) => {
    const row = latest.get(id);
    return row ? rowLine(row) : (old.get(id) ?? unmeasuredLine(id));
  });
  return readme.slice(0, start) + [TABLE_START, '', ...HEADER, ...lines, '', ''].join('\n') + readme.slice(end);
}

/** Reads the rows file (one JSON row a line; later lines of an id win). */
export function readRows(file: string): MeasuredRow[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as MeasuredRow)
    .filter((row) => row.id in ROW_KINDS);
}

async function main(): Promise<void> {
  const [rowsFile, readmeArg] = process.argv.slice(2);
  if (!rowsFile) throw new Error('usage: node --import=tsx bench/readme-table.ts <rows.jsonl> [README.md]');
  const readme = readmeArg ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'README.md');
  const rows = readRows(rowsFile);
  if (rows.length === 0) {
    console.log('README table: no row measured in this run; README.md left as it is.');
    return;
  }
  const text = withTable(readFileSync(readme, 'utf8'), rows);
  const options = (await prettier.resolveConfig(readme)) ?? {};
  writeFileSync(readme, await prettier.format(text, { ...options, filepath: readme }));
  console.log(`README table: ${rows.map((r) => r.id).join(', ')} written to ${readme}.`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
