/**
 * The diagram of an archive's tables and foreign keys: metadata.xml as Graphviz DOT (one box per
 * table with its row count, one arrow per foreign key, from the referencing table to the one it
 * references), laid out and drawn as SVG by Graphviz compiled to WebAssembly (`@viz-js/viz`).
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
  for (const s of archive.schemas)
    for (const t of s.tables) lines.push(`  ${id(s.name, t.name)} [label=${dotString(`${s.name}.${t.name} (${t.rows} rows)`)}];`);
  for (const s of archive.schemas)
    for (const t of s.tables)
      for (const fk of t.foreignKeys)
        lines.push(`  ${id(s.name, t.name)} -> ${id(fk.referencedSchema || s.name, fk.referencedTable)} [label=${dotString(fk.name)}];`);
  lines.push('}');
  return lines.join('\n') + '\n';
}

let viz: Promise<{ renderString(dot: string, options: { format: string; engine?: string }): string }> | undefined;

/** The SVG of `dot` (Graphviz's dot layout). */
export async function renderSvg(dot: string): Promise<string> {
  viz ??= import('@viz-js/viz').then((m) => m.instance());
  return (await viz).renderString(dot, { format: 'svg', engine: 'dot' });
}
