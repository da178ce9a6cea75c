/**
 * The diagram of an archive's tables and foreign keys: metadata.xml as Graphviz DOT (one box per
 * table with its row count, one arrow per foreign key, from the referencing table to the one it
 * references; tables no key joins in a grid), laid out and drawn as SVG by Graphviz compiled to WebAssembly (`@viz-js/viz`).
 * Names are data: every one is a quoted DOT string with `"` and `\` escaped, and Graphviz writes
 * text into the SVG as XML text. The SVG is shown through an <img>, where no script can run.
 */
import type { SiardArchive } from '../siard/model.js';

/** A DOT quoted string: backslash and double quote escaped, line breaks as spaces. */
export function dotString(text: string): string {
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`).replace(/[\r\n]+/g, ' ')}"`;
}

export function diagramDot(archive: SiardArchive): string {
  const lines = [
    'digraph tables {',
    '  graph [rankdir=LR, fontname="sans-serif", nodesep=0.3, ranksep=0.8, overlap=false];',
    '  node [shape=box, style="rounded,filled", fillcolor="#eef", fontname="sans-serif", fontsize=11];',
    '  edge [fontname="sans-serif", fontsize=9, color="#567"];',
  ];
  const id = (schema: string, table: string) => dotString(`${schema}.${table}`);
  const edges: string[] = [];
  const linked = new Set<string>();
  for (const s of archive.schemas)
    for (const t of s.tables)
      for (const fk of t.foreignKeys) {
        const [from, to] = [id(s.name, t.name), id(fk.referencedSchema || s.name, fk.referencedTable)];
        linked.add(from).add(to);
        edges.push(`  ${from} -> ${to} [label=${dotString(fk.name)}];`);
      }
  const alone: string[] = [];
  for (const s of archive.schemas)
    for (const t of s.tables) {
      lines.push(`  ${id(s.name, t.name)} [label=${dotString(`${s.name}.${t.name} (${t.rows} rows)`)}];`);
      if (!linked.has(id(s.name, t.name))) alone.push(id(s.name, t.name));
    }
  lines.push(...edges);
  // Tables without foreign keys would all share one rank: a column as tall as their number (100
  // tables: 80 inches). Invisible edges chain them in rows of about the square root of their number.
  const row = Math.ceil(Math.sqrt(alone.length));
  for (let i = 0; i + 1 < alone.length; i++) if ((i + 1) % row !== 0) lines.push(`  ${alone[i]} -> ${alone[i + 1]} [style=invis];`);
  lines.push('}');
  return lines.join('\n') + '\n';
}

let viz: Promise<{ renderString(dot: string, options: { format: string; engine?: string }): string }> | undefined;

/** The SVG of `dot` (Graphviz's dot layout). */
export async function renderSvg(dot: string): Promise<string> {
  viz ??= import('@viz-js/viz').then((m) => m.instance());
  return (await viz).renderString(dot, { format: 'svg', engine: 'dot' });
}
