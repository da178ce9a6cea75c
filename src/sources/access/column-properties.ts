/**
 * The properties Access keeps for a table and its columns (a column's Description, a calculated
 * column's Expression, formats, defaults...): the LvProp value of the table's MSysObjects row, laid
 * out as mdbtools' props.c reads it. "KKD\0" (Jet 3) or "MR2\0", then chunks, each a 4-byte length
 * (itself included) and a 2-byte type: 0x80 the pool of property names (each a 2-byte length and
 * the name), 0x00 to 0x02 a block of properties, for the table (no name) or a column (its name):
 * after a 4-byte length and the 2-byte name length and name, entries of a 2-byte length, a flag
 * byte, the value's type, the name's index in the pool (2 bytes), the value's length (2 bytes) and
 * the value.
 */
import type MDBReader from 'mdb-reader';
import { jetText } from './table-definition.js';

export type PropertyValue = string | number | boolean | Buffer;

/** Property blocks by name ('' for the table's own), each its properties by name. */
export type PropertyBlocks = Map<string, Map<string, PropertyValue>>;

const NAMES = 0x80;
const BOOLEAN = 0x01;
const BYTE = 0x02;
const INTEGER = 0x03;
const LONG = 0x04;
const TEXT = 0x0a;
const MEMO = 0x0c;

function value(type: number, bytes: Buffer, jet3: boolean): PropertyValue {
  if (type === TEXT || type === MEMO) return jetText(bytes, jet3);
  if (type === BOOLEAN) return bytes[0] !== 0;
  if (type === BYTE && bytes.length >= 1) return bytes.readUInt8(0);
  if (type === INTEGER && bytes.length >= 2) return bytes.readInt16LE(0);
  if (type === LONG && bytes.length >= 4) return bytes.readInt32LE(0);
  return Buffer.from(bytes);
}

function names(chunk: Buffer, jet3: boolean): string[] {
  const out: string[] = [];
  for (let pos = 0; pos + 2 <= chunk.length;) {
    const length = chunk.readUInt16LE(pos);
    out.push(jetText(chunk.subarray(pos + 2, pos + 2 + length), jet3));
    pos += 2 + length;
  }
  return out;
}

function block(chunk: Buffer, pool: readonly string[], jet3: boolean): [string, Map<string, PropertyValue>] {
  const nameLength = chunk.readUInt16LE(4);
  const name = jetText(chunk.subarray(6, 6 + nameLength), jet3);
  const properties = new Map<string, PropertyValue>();
  for (let pos = 6 + nameLength; pos + 8 <= chunk.length;) {
    const length = chunk.readUInt16LE(pos);
    const index = chunk.readUInt16LE(pos + 4);
    const size = chunk.readUInt16LE(pos + 6);
    if (length < 8 || index >= pool.length || pos + 8 + size > chunk.length) break;
    properties.set(pool[index]!, value(chunk.readUInt8(pos + 3), chunk.subarray(pos + 8, pos + 8 + size), jet3));
    pos += length;
  }
  return [name, properties];
}

/** The property blocks of an LvProp value; throws on a value that is not one. */
export function parseProperties(blob: Buffer, jet3: boolean): PropertyBlocks {
  const magic = blob.subarray(0, 4).toString('latin1');
  if (magic !== 'KKD\0' && magic !== 'MR2\0') throw new Error(`a property value that starts with neither KKD nor MR2`);
  const out: PropertyBlocks = new Map();
  let pool: string[] | undefined;
  for (let pos = 4; pos + 6 <= blob.length;) {
    const length = blob.readUInt32LE(pos);
    if (length < 6) break;
    const type = blob.readUInt16LE(pos + 4);
    const chunk = blob.subarray(pos + 6, pos + length);
    if (type === NAMES) pool = names(chunk, jet3);
    else if (type <= 0x02 && pool) {
      const [name, properties] = block(chunk, pool, jet3);
      out.set(name, new Map([...(out.get(name) ?? []), ...properties]));
    }
    pos += length;
  }
  return out;
}

/** A column's description from its properties: its Description, and a calculated column's expression. */
export function columnDescription(properties: ReadonlyMap<string, PropertyValue> | undefined): string | undefined {
  const description = properties?.get('Description');
  const expression = properties?.get('Expression');
  const parts = [
    ...(typeof description === 'string' && description !== '' ? [description] : []),
    ...(typeof expression === 'string' && expression !== '' ? [`Calculated column: ${expression}`] : []),
  ];
  return parts.length > 0 ? parts.join(' ') : undefined;
}

/** Each table's LvProp value (MSysObjects rows of type 1), by table name. */
export function tablePropertyValues(reader: MDBReader): Map<string, Buffer> {
  const rows = reader.getTable('MSysObjects').getData({ columns: ['Name', 'Type', 'LvProp'] }) as Array<{
    Name: string;
    Type: number;
    LvProp: Buffer | null;
  }>;
  return new Map(rows.filter((r) => (r.Type & 0x7f) === 1 && r.LvProp).map((r) => [r.Name, r.LvProp!]));
}
