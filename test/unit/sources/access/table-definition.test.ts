/**
 * Table definition pages built byte by byte as mdbtools' format notes lay them out (HACKING.md,
 * "TDEF (Table Definition) Pages"; the Jet 4 real index's flags after the 4 bytes that mdbtools'
 * index.c skips), for Jet 3 and Jet 4: the parser finds every index, its columns by column number
 * (a deleted column leaves a gap), the primary key, the unique flag, the relationship's index, and
 * follows a definition onto its next page. The samples' definitions are compared with mdb-schema
 * in test/integration/access-samples.test.ts.
 */
import test from 'ava';
import type { AccessPages } from '../../../../src/sources/access/decrypted-pages.js';
import { definitionBytes, jetText, parseTableDefinition } from '../../../../src/sources/access/table-definition.js';

interface Spec {
  jet3: boolean;
  /** [column number, name] */
  columns: Array<[number, string]>;
  /** column numbers and the flags byte of each physical index */
  real: Array<{ columns: number[]; flags: number }>;
  /** name, physical index number, type (1 primary, 2 foreign) */
  logical: Array<{ name: string; real: number; type: number }>;
}

class Bytes {
  private parts: Buffer[] = [];
  u8(v: number) {
    this.parts.push(Buffer.from([v]));
    return this;
  }
  u16(v: number) {
    const b = Buffer.alloc(2);
    b.writeUInt16LE(v);
    this.parts.push(b);
    return this;
  }
  u32(v: number) {
    const b = Buffer.alloc(4);
    b.writeInt32LE(v);
    this.parts.push(b);
    return this;
  }
  zeros(n: number) {
    this.parts.push(Buffer.alloc(n));
    return this;
  }
  raw(b: Buffer) {
    this.parts.push(b);
    return this;
  }
  get length() {
    return this.parts.reduce((n, p) => n + p.length, 0);
  }
  done() {
    return Buffer.concat(this.parts);
  }
}

function name(b: Bytes, text: string, jet3: boolean): void {
  const encoded = jet3 ? Buffer.from(text, 'latin1') : Buffer.from(text, 'utf16le');
  if (jet3) b.u8(encoded.length);
  else b.u16(encoded.length);
  b.raw(encoded);
}

/** A whole definition (what definitionBytes gives), field by field in the documented order. */
function tdef(s: Spec): Buffer {
  const b = new Bytes();
  b.u8(0x02)
    .u8(0x01)
    .u16(s.jet3 ? 0x4356 : 0)
    .u32(0); // page type, unknown, tdef_id, next_pg
  b.u32(0); // tdef_len
  if (!s.jet3) b.u32(0); // unknown
  b.u32(7).u32(0); // num_rows, autonumber
  if (!s.jet3) b.u8(1).zeros(3).u32(0).zeros(8); // autonum_flag, unknown, ct_autonum, unknown
  b.u8(0x4e).u16(s.columns.length).u16(0).u16(s.columns.length); // table_type, max_cols, num_var_cols, num_cols
  b.u32(s.logical.length).u32(s.real.length).u32(0).u32(0); // num_idx, num_real_idx, used_pages, free_pages
  for (const _ of s.real)
    b.u32(0)
      .u32(7)
      .zeros(s.jet3 ? 0 : 4);
  for (const [number] of s.columns) {
    if (s.jet3) b.u8(0x04).u16(number).u16(0).u16(number).u16(0x409).u16(0).u16(0).u8(0x03).u16(0).u16(4);
    else b.u8(0x04).u32(0).u16(number).u16(0).u16(number).u16(0).u16(0).u8(0x03).u8(0).u32(0).u16(0).u16(4);
  }
  for (const [, column] of s.columns) name(b, column, s.jet3);
  for (const r of s.real) {
    if (!s.jet3) b.u32(0);
    for (let k = 0; k < 10; k++) {
      const column = r.columns[k];
      b.u16(column ?? 0xffff).u8(column === undefined ? 0 : 1);
    }
    b.u32(0).u32(0); // used_pages, first_dp
    if (!s.jet3) b.u32(0); // skipped by mdbtools before the flags
    b.u8(r.flags);
    if (!s.jet3) b.zeros(5);
  }
  s.logical.forEach((l, i) => {
    if (!s.jet3) b.u32(0);
    b.u32(i).u32(l.real).u8(0).u32(-1).u32(0).u8(0).u8(0).u8(l.type);
    if (!s.jet3) b.u32(0);
  });
  for (const l of s.logical) name(b, l.name, s.jet3);
  return b.u16(0xffff).done();
}

const SPEC: Omit<Spec, 'jet3'> = {
  // column 2 was deleted: numbers 0, 1, 3, 4
  columns: [
    [0, 'ID'],
    [1, 'Code'],
    [3, 'Year'],
    [4, 'Owner'],
  ],
  real: [
    { columns: [1, 3], flags: 0x89 }, // unique, required
    { columns: [0], flags: 0x01 },
    { columns: [4], flags: 0x00 },
  ],
  logical: [
    { name: 'CodeYear', real: 0, type: 0 },
    { name: 'PrimaryKey', real: 1, type: 1 },
    { name: 'Owner', real: 2, type: 0 },
    { name: 'OwnersRelationship', real: 2, type: 2 }, // shares the physical index of "Owner"
  ],
};

for (const jet3 of [true, false]) {
  test(`${jet3 ? 'Jet 3' : 'Jet 4'}: every index with its columns by number, primary, unique and relationship indexes told apart`, (t) => {
    const parsed = parseTableDefinition(tdef({ ...SPEC, jet3 }), jet3);
    t.deepEqual([...parsed.columnNames], SPEC.columns);
    t.deepEqual(parsed.indexes, [
      { name: 'CodeYear', columns: ['Code', 'Year'], primary: false, unique: true, foreignKey: false },
      { name: 'PrimaryKey', columns: ['ID'], primary: true, unique: true, foreignKey: false },
      { name: 'Owner', columns: ['Owner'], primary: false, unique: false, foreignKey: false },
      { name: 'OwnersRelationship', columns: ['Owner'], primary: false, unique: false, foreignKey: true },
    ]);
  });
}

test('an index over a column number the table does not have is an error, not a wrong key', (t) => {
  const bytes = tdef({ ...SPEC, jet3: false, real: [{ columns: [9], flags: 1 }], logical: [{ name: 'X', real: 0, type: 0 }] });
  t.throws(() => parseTableDefinition(bytes, false), { message: /index "X" names column number 9/ });
});

test('a definition longer than a page continues on next_pg, read without that page header', (t) => {
  const whole = tdef({ ...SPEC, jet3: false });
  const size = 128; // small pages: the definition spans several
  const first = Buffer.alloc(size);
  whole.copy(first, 0, 0, size);
  const rest = whole.subarray(size);
  const pages = new Map<number, Buffer>();
  let n = 5;
  pages.set(n, first);
  for (let at = 0; at < rest.length; at += size - 8) {
    const page = Buffer.alloc(size);
    page[0] = 0x02;
    rest.copy(page, 8, at, at + size - 8);
    pages.get(n)!.writeUInt32LE(n + 3, 4);
    n += 3;
    pages.set(n, page);
  }
  const access: AccessPages = { pageSize: size, jet3: false, page: (p) => pages.get(p)! };
  const bytes = definitionBytes(access, 5);
  t.true(pages.size > 2);
  t.deepEqual(
    parseTableDefinition(bytes, false).indexes.map((i) => i.name),
    SPEC.logical.map((l) => l.name),
  );
  t.throws(() => definitionBytes({ ...access, page: () => Buffer.from([0x01, 0, 0, 0, 0, 0, 0, 0]) }, 5), {
    message: /not a table definition page/,
  });
});

test('names: UCS-2, Jet 4 "compressed" text (FF FE, one byte a character, 00 switching to two), Jet 3 one byte a character', (t) => {
  t.is(jetText(Buffer.from('Prüfung', 'utf16le'), false), 'Prüfung');
  t.is(jetText(Buffer.from([0xff, 0xfe, 0x41, 0x62, 0x00, 0x3b, 0x04, 0x00, 0x63]), false), 'Ab\u043bc');
  t.is(jetText(Buffer.from('Größe', 'latin1'), true), 'Größe');
});
