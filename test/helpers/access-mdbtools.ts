/**
 * Debian's mdbtools, an independent reader of Access files (C, not mdb-reader): the tables
 * (mdb-tables), each column's Access type (mdb-schema) and each table's rows (mdb-export as CSV,
 * dates as YYYY-MM-DD hh:mm:ss, bytes as hex). And the canonical form both sides of a comparison
 * are brought to, by Access type: integers as decimal digits, exact numbers without trailing
 * zeros, a Single as float32, dates to the second, booleans 0/1, bytes as upper-case hex.
 */
import { execFileSync } from 'node:child_process';
import { hasProgram } from './requires.js';

export const HAS_MDBTOOLS = hasProgram('mdb-export', '--version');

/** The user tables, as mdb-tables lists them. */
export function mdbTables(file: string): string[] {
  return execFileSync('mdb-tables', ['-1', file], { encoding: 'utf8' }).split('\n').filter(Boolean);
}

/** The system tables too (-S), e.g. an attachment column's flat table f_<id>_<column>. */
export function mdbAllTables(file: string): string[] {
  return execFileSync('mdb-tables', ['-S', '-1', file], { encoding: 'utf8' }).split('\n').filter(Boolean);
}

/** Each column's Access type as mdb-schema names it ("Long Integer", "Text (50)", "Unknown_0012"...), in table order. */
export function mdbColumnTypes(file: string, table: string): Array<{ name: string; type: string }> {
  const schema = execFileSync('mdb-schema', ['-T', table, '--no-indexes', '--no-relations', file], { encoding: 'utf8' });
  const out: Array<{ name: string; type: string }> = [];
  for (const line of schema.split('\n')) {
    const m = /^\t\[(.*)\]\t+(.*?)(?: NOT NULL)?,? ?$/.exec(line);
    if (m) out.push({ name: m[1]!, type: m[2]! });
  }
  return out;
}

/** A table's rows as mdb-export prints them: null for NULL (an unquoted empty field), else the field's text. */
export function mdbExport(file: string, table: string): { header: string[]; rows: Array<Array<string | null>> } {
  const csv = execFileSync(
    'mdb-export',
    ['-D', '%Y-%m-%d %H:%M:%S', '-T', '%Y-%m-%d %H:%M:%S', '-b', 'hex', '-d', ',', '-q', '"', file, table],
    { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const records = parseCsv(csv);
  const header = (records.shift() ?? []).map((f) => f ?? '');
  return { header, rows: records };
}

/** RFC 4180 CSV as mdb-export writes it (quotes doubled, line breaks inside quotes); an unquoted empty field is null. */
function parseCsv(text: string): Array<Array<string | null>> {
  const records: Array<Array<string | null>> = [];
  let fields: Array<string | null> = [];
  let i = 0;
  while (i < text.length) {
    let field: string | null;
    if (text[i] === '"') {
      let value = '';
      i++;
      for (;;) {
        const q = text.indexOf('"', i);
        value += text.slice(i, q);
        i = q + 1;
        if (text[i] === '"') {
          value += '"';
          i++;
        } else break;
      }
      field = value;
    } else {
      let end = i;
      while (end < text.length && text[end] !== ',' && text[end] !== '\n') end++;
      field = end === i ? null : text.slice(i, end);
      i = end;
    }
    fields.push(field);
    if (text[i] === ',') i++;
    else {
      records.push(fields);
      fields = [];
      i++; // the line break
    }
  }
  return records;
}

/** A decimal number's digits without trailing fractional zeros or a lone point; -0 as 0. */
function exactDecimal(text: string): string {
  let s = text.trim();
  if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
  s = s.replace(/^(-?)0+(?=\d)/, '$1');
  return s === '-0' ? '0' : s;
}

function hexOf(value: unknown): string {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('hex').toUpperCase();
  const s = String(value);
  return (s.startsWith('\\x') ? s.slice(2) : s).toUpperCase();
}

/**
 * The canonical form of a value of an Access column (type as mdb-schema names it), from either side:
 * mdb-export's text or a restored database's value (number, bigint, string, bytes, Date as UTC).
 */
export function canonical(type: string, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (/^(Byte|Integer|Long Integer)$/.test(type)) return BigInt(String(value)).toString();
  if (type === 'Currency' || type.startsWith('Numeric')) return exactDecimal(String(value));
  if (type === 'Single') return String(Math.fround(Number(value)));
  if (type === 'Double') return String(Number(value));
  if (type === 'DateTime') {
    const text = value instanceof Date ? value.toISOString() : String(value);
    return text.slice(0, 19).replace('T', ' ');
  }
  if (type === 'Boolean') return ['1', 'true', 't', '-1'].includes(String(value).toLowerCase()) ? '1' : '0';
  if (type.startsWith('OLE') || type.startsWith('Binary')) return hexOf(value);
  if (type === 'Replication ID') return String(value).toUpperCase();
  return value instanceof Uint8Array ? Buffer.from(value).toString('utf8') : String(value);
}

/** A table's indexes as mdb-schema's MySQL form prints them: the primary key, unique and plain indexes by name, columns in key order. */
export interface MdbIndexes {
  primaryKey?: string[];
  unique: Array<{ name: string; columns: string[] }>;
  plain: Array<{ name: string; columns: string[] }>;
}

/** Every table's indexes (mdb-schema's `mysql` backend keeps the names' case; the default `access` one prints none). */
export function mdbIndexes(file: string): Map<string, MdbIndexes> {
  const schema = execFileSync('mdb-schema', ['--indexes', '--no-relations', file, 'mysql'], { encoding: 'utf8' });
  const out = new Map<string, MdbIndexes>();
  const columnsOf = (list: string) => [...list.matchAll(/`([^`]*)`/g)].map((m) => m[1]!);
  for (const line of schema.split('\n')) {
    const m = /^ALTER TABLE `([^`]*)` ADD (PRIMARY KEY|UNIQUE INDEX `([^`]*)`|INDEX `([^`]*)`) \((.*)\);$/.exec(line);
    if (!m) continue;
    const table = out.get(m[1]!) ?? { unique: [], plain: [] };
    out.set(m[1]!, table);
    const columns = columnsOf(m[5]!);
    if (m[2] === 'PRIMARY KEY') table.primaryKey = columns;
    else if (m[3] !== undefined) table.unique.push({ name: m[3], columns });
    else table.plain.push({ name: m[4]!, columns });
  }
  return out;
}
