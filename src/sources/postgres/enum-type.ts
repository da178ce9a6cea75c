/**
 * A PostgreSQL enum in SIARD: a DISTINCT type over VARCHAR(longest label) whose description lists
 * the labels in their sort order as SQL string literals:
 *
 *   <type><name>mood</name><category>distinct</category><instantiable>false</instantiable>
 *   <final>true</final><base>VARCHAR(5)</base>
 *   <description>PostgreSQL enum; labels in order: 'sad', 'ok', 'happy'</description></type>
 *
 * Columns of the enum name it (typeSchema, typeName); cells hold the label. Any SIARD reader sees
 * a distinct type of text values; a restore into PostgreSQL creates the enum again from the list.
 */
import type { SiardType } from '../../siard/model.js';

const PREFIX = 'PostgreSQL enum; labels in order: ';

export function enumType(name: string, labels: string[]): SiardType {
  const longest = Math.max(1, ...labels.map((l) => [...l].length));
  return {
    name,
    category: 'distinct',
    instantiable: false,
    final: true,
    base: `VARCHAR(${longest})`,
    description: PREFIX + labels.map((l) => `'${l.replace(/'/g, "''")}'`).join(', '),
  };
}

/** The labels of a type written by enumType, or undefined for any other type. */
export function enumLabels(type: SiardType): string[] | undefined {
  if (type.category !== 'distinct' || !type.description?.startsWith(PREFIX)) return undefined;
  const list = type.description.slice(PREFIX.length);
  const labels: string[] = [];
  const re = /'((?:[^']|'')*)'(, |$)/y;
  let m: RegExpExecArray | null;
  while (re.lastIndex < list.length && (m = re.exec(list))) labels.push(m[1]!.replace(/''/g, "'"));
  return re.lastIndex === list.length && labels.length > 0 ? labels : undefined;
}
