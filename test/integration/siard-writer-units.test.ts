/** Small, fast checks of the writer's pieces: LOB placement edge cases, SIARD escaping, decimals. */
import test from 'ava';
import { LobsegLayout, Siard22Layout } from '../../src/siard/lob-placement.js';
import { escapeSiardText } from '../../src/siard/xml-text.js';
import { plainDecimal } from '../../src/siard/table-data.js';
import { siardText } from '../helpers/export-support.js';

const addr = (row: number, size: number, column = 4) => ({ schema: 0, table: 2, column, row, extension: 'bin', size });

test('lobseg: the recommendation example, sizes only', (t) => {
  const layout = new LobsegLayout('Northwind', { maxFiles: 4, maxBytes: 45000 });
  const sizes = [10151, 12107, 12007, 9756, 12131, 11280, 12338, 12069];
  const folders = sizes.map((s, i) => layout.place(addr(i + 1, s)).parts.map((p) => p.relPath.split('/')[0]));
  t.deepEqual(
    folders.flat(),
    ['_0', '_0', '_0', '_0', '_1', '_1', '_1', '_2'].map((h) => `Northwind_lobseg${h}`),
  );
  t.is(layout.segmentCount(), 3);
});

test('lobseg: a LOB of exactly max-bytes is not split; one more byte is', (t) => {
  const layout = new LobsegLayout('D', { maxFiles: 10, maxBytes: 100 });
  t.deepEqual(
    layout.place(addr(1, 100)).parts.map((p) => [p.relPath, p.length]),
    [['D_lobseg_0/content/schema0/table2/lob4/record0.bin', 100]],
  );
  // folder 0 is full by size: the next LOB, 101 bytes, starts a new folder and ends in the one after.
  const p = layout.place(addr(2, 101));
  t.deepEqual(
    p.parts.map((x) => [x.relPath, x.length]),
    [
      ['D_lobseg_1/content/schema0/table2/lob4/record1.bin.0', 100],
      ['D_lobseg_2/content/schema0/table2/lob4/record1.bin.z', 1],
    ],
  );
  t.is(p.cellFile, 'D_lobseg_1/content/schema0/table2/lob4/record1.bin');
  // the next small LOB joins the folder of .z
  t.is(layout.place(addr(3, 10)).parts[0]!.relPath.split('/')[0], 'D_lobseg_2');
});

test('lobseg: the file-count limit counts parts, and a full folder is never reused', (t) => {
  const layout = new LobsegLayout('D', { maxFiles: 2, maxBytes: 100 });
  layout.place(addr(1, 10));
  const split = layout.place(addr(2, 250));
  t.deepEqual(
    split.parts.map((x) => [x.relPath.split('/')[0], x.length]),
    [
      ['D_lobseg_0', 90],
      ['D_lobseg_1', 100],
      ['D_lobseg_2', 60],
    ],
  );
  t.deepEqual(
    split.parts.map((x) => x.relPath.split('.').pop()),
    ['0', '1', 'z'],
  );
  layout.place(addr(3, 10)); // second file in D_lobseg_2
  t.is(layout.place(addr(4, 10)).parts[0]!.relPath.split('/')[0], 'D_lobseg_3');
});

test('siard22: each column has its own segment folders; parts are _part001 ...', (t) => {
  const layout = new Siard22Layout('N', { maxFiles: 2, maxBytes: 100 });
  t.is(layout.databaseLobFolder('../'), '../N_lobs/');
  t.is(layout.columnLobFolder(0, 2, 4), 's0_t2_c4/');
  t.is(layout.place(addr(1, 50)).cellFile, 'seg_0/t2_c4_r1.bin');
  t.is(layout.place(addr(1, 50, 5)).cellFile, 'seg_0/t2_c5_r1.bin', 'another column starts at seg_0');
  const big = layout.place(addr(2, 180));
  t.deepEqual(
    big.parts.map((p) => [p.relPath, p.length]),
    [
      ['N_lobs/s0_t2_c4/seg_0/t2_c4_r2.bin_part001', 50],
      ['N_lobs/s0_t2_c4/seg_1/t2_c4_r2.bin_part002', 100],
      ['N_lobs/s0_t2_c4/seg_2/t2_c4_r2.bin_part003', 30],
    ],
  );
  t.is(big.cellFile, 'seg_0/t2_c4_r2.bin');
});

test('SIARD escaping: every character 0-159 and the XML specials survive a parse + unescape', (t) => {
  let all = '';
  for (let c = 0; c < 160; c++) all += String.fromCharCode(c);
  all += '  double  space \\u0041 <>&"\' Ω 😀';
  const escaped = escapeSiardText(all);
  // nothing XML 1.0 forbids, no raw CR (a parser would turn it into LF), no raw backslash
  t.false(/[\u0000-\u0008\u000b\u000c\u000d\u000e-\u001f\u007f-\u009f]/.test(escaped));
  t.false(/\\(?!u00[0-9A-F]{2})/.test(escaped), 'every backslash starts an escape');
  t.is(siardText(escaped), all);
  t.throws(() => escapeSiardText('lone \ud800 surrogate'), { message: /lone surrogate/ });
});

test('SIARD escaping, one character at a time: every UTF-16 code unit alone, between letters and after a space', (t) => {
  // Text without anything to escape is returned as it is after one regex scan: no character that
  // needs an escape may slip through that scan, whatever stands around it.
  const forbidden = /[\u0000-\u0008\u000b\u000c\u000d\u000e-\u001f\u007f-\u009f\\&<>"']| {2}/;
  let checked = 0;
  for (let c = 0; c <= 0xffff; c++) {
    if ((c >= 0xd800 && c <= 0xdfff) || c === 0xfffe || c === 0xffff) continue; // refused (tested above)
    const ch = String.fromCharCode(c);
    for (const text of [ch, `a${ch}b`, ` ${ch}`, `${ch}${ch}`]) {
      const escaped = escapeSiardText(text);
      const raw = escaped.replace(/&(amp|lt|gt|quot|apos);/g, '').replace(/\\u00[0-9A-F]{2}/g, '');
      if (forbidden.test(raw) || siardText(escaped) !== text)
        t.fail(`U+${c.toString(16)} in ${JSON.stringify(text)} -> ${JSON.stringify(escaped)}`);
      checked++;
    }
  }
  t.is(checked, 4 * (0x10000 - 0x800 - 2));
});

test('plainDecimal writes doubles without exponent and with the same value', (t) => {
  for (const v of [0, 1, -1, 0.1, 1e21, 1.5e300, -2.5e-7, 5e-324, 123.456, 2 ** 60]) {
    const s = plainDecimal(v);
    t.regex(s, /^-?\d+(\.\d+)?$/, s);
    t.is(Number(s), v, s);
  }
});
