/**
 * The table fingerprint's hash (row-hash.ts) against the rule docs/fingerprints.md states, written
 * here again from that text with BigInt arithmetic (no Math.imul, no shared code): a fingerprint
 * file written by an earlier build must keep matching. Rows of random cells (NULL, '', odd and even
 * lengths, non-ASCII, astral and lone surrogate code units), given whole (`add`) and cell by cell;
 * `zonedCell` and `bytesCell` against `cell` of the form each stands for.
 */
import test from 'ava';
import { TableFingerprint } from '../../../../src/siard/fingerprint/row-hash.js';

const M32 = 0xffffffffn;
const mul = (x: bigint, y: bigint) => (x * y) & M32;

function fmix32(h: bigint): bigint {
  h ^= h >> 16n;
  h = mul(h, 0x85ebca6bn);
  h ^= h >> 13n;
  h = mul(h, 0xc2b2ae35n);
  h ^= h >> 16n;
  return h;
}

/** The row's 32-bit words: per cell its length (-1 for NULL), then its UTF-16 units two at a time, the first the low half. */
function words(cells: ReadonlyArray<string | null>): bigint[] {
  const out: bigint[] = [];
  for (const s of cells) {
    out.push(BigInt.asUintN(32, BigInt(s === null ? -1 : s.length)));
    if (s === null) continue;
    for (let k = 0; k < s.length; k += 2) out.push(BigInt(s.charCodeAt(k)) + (k + 1 < s.length ? BigInt(s.charCodeAt(k + 1)) << 16n : 0n));
  }
  return out;
}

/** The documented fingerprint of a table of `rows`. */
function reference(rows: ReadonlyArray<ReadonlyArray<string | null>>): string {
  const P = 4294967291n;
  let first = 0n;
  let second = 0n;
  for (const row of rows) {
    let fnv = 0x811c9dc5n;
    let b = 1n;
    let c = 0n;
    for (const w of words(row)) {
      fnv = mul(fnv ^ w, 0x01000193n);
      b = (b + w) & M32;
      c = (c + b) & M32;
    }
    first = (first + fmix32(fnv)) % P;
    second = (second + fmix32(b ^ mul(c, 0x9e3779b1n))) % P;
  }
  return first.toString(16).padStart(8, '0') + second.toString(16).padStart(8, '0');
}

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const UNITS = ['a', 'Z', ' ', '0', 'é', '東', '\ud83d\ude00', '\ud800', '\udfff', '\u0000', '\uffff'];

function randomRows(next: () => number, count: number): Array<Array<string | null>> {
  const columns = 1 + Math.floor(next() * 6);
  return Array.from({ length: count }, () =>
    Array.from({ length: columns }, () => {
      if (next() < 0.2) return null;
      let s = '';
      for (let n = Math.floor(next() * 12); n > 0; n--) s += UNITS[Math.floor(next() * UNITS.length)];
      return s;
    }),
  );
}

test('rows given whole and cell by cell: the fingerprint docs/fingerprints.md defines', (t) => {
  const next = random(34);
  for (let table = 0; table < 200; table++) {
    const rows = randomRows(next, Math.floor(next() * 20));
    const whole = new TableFingerprint();
    const byCell = new TableFingerprint();
    for (const row of rows) {
      whole.add(row);
      for (const cell of row) {
        if (cell === null) byCell.nullCell();
        else byCell.cell(cell);
      }
      byCell.endRow();
    }
    const expected = reference(rows);
    t.is(whole.hex(), expected, JSON.stringify(rows));
    t.is(byCell.hex(), expected);
    t.is(whole.rows, rows.length);
  }
});

test('order does not count, a row read twice does, and so does the cell a text is split into', (t) => {
  const of = (rows: Array<Array<string | null>>) => {
    const f = new TableFingerprint();
    for (const row of rows) f.add(row);
    return f.hex();
  };
  const rows = [
    ['1', 'ab', null],
    ['2', 'c', ''],
    ['3', null, 'x'],
  ];
  t.is(of(rows), of([rows[2]!, rows[0]!, rows[1]!]));
  t.not(of(rows), of([...rows, rows[1]!]));
  t.not(of([['ab', 'c']]), of([['a', 'bc']]));
  t.not(of([['', null]]), of([[null, '']]));
});

test('zonedCell hashes as cell of the form it stands for: the text with T at the separator and a Z unless it has one', (t) => {
  const sources: Array<[string, number, string]> = [
    ['2024-01-05 10:00:00', 10, '2024-01-05T10:00:00Z'],
    ['2024-01-05T10:00:00', 10, '2024-01-05T10:00:00Z'],
    ['2024-01-05 10:00:00Z', 10, '2024-01-05T10:00:00Z'],
    ['2024-01-05 10:00:00.5', 10, '2024-01-05T10:00:00.5Z'],
    ['2024-01-05 10:00:00.123456', 10, '2024-01-05T10:00:00.123456Z'],
    ['2024-01-05T10:00:00.1234567Z', 10, '2024-01-05T10:00:00.1234567Z'],
    ['2024-01-05', -1, '2024-01-05Z'],
    ['2024-01-05Z', -1, '2024-01-05Z'],
    ['10:00:00', -1, '10:00:00Z'],
    ['10:00:00.25', -1, '10:00:00.25Z'],
  ];
  for (const [source, at, form] of sources) {
    const zoned = new TableFingerprint();
    zoned.cell('x');
    zoned.zonedCell(source, at);
    zoned.nullCell();
    zoned.endRow();
    t.is(zoned.hex(), reference([['x', form, null]]), source);
  }
});

test('bytesCell hashes as cell of the form it stands for: ASCII bytes, back-slash pairs as one unit, T at tAt, then the tail', (t) => {
  const cases: Array<[string, boolean, number, string, string]> = [
    ['12345', false, -1, '', '12345'],
    ['', false, -1, '', ''],
    ['2024-01-05 10:00:00', false, 10, 'Z', '2024-01-05T10:00:00Z'],
    ['2024-01-05 10:00:00.123456', false, 10, 'Z', '2024-01-05T10:00:00.123456Z'],
    ['2024-01-05', false, -1, 'Z', '2024-01-05Z'],
    ['100', false, -1, '.0', '100.0'],
    ['0.25', false, -1, '', '0.25'],
    ['a\\tb\\\\c\\nd\\re\\bf\\fg\\vh', true, -1, '', 'a\tb\\c\nd\re\bf\fg\vh'],
    ['\\\\', true, -1, '', '\\'],
    ['odd', true, -1, '', 'odd'],
    ['a&b  <c>', true, -1, '', 'a&b  <c>'],
  ];
  for (const [text, escaped, tAt, tail, form] of cases) {
    // the text inside other bytes, as a field of a row
    const bytes = Buffer.from(`x\t${text}\ty`, 'latin1');
    const hashed = new TableFingerprint();
    hashed.cell('x');
    hashed.bytesCell(bytes, 2, 2 + text.length, form.length, escaped, tAt, tail);
    hashed.nullCell();
    hashed.endRow();
    t.is(hashed.hex(), reference([['x', form, null]]), text);
  }
});
