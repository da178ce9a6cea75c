/**
 * The LOB layouts' counters for a resumable export (docs/resume.md): a layout restored from a
 * snapshot (through JSON, as the journal keeps it) places the following LOBs exactly where the
 * layout that was never stopped places them, in both layouts, across full folders and split LOBs;
 * and tableOfFile names the table of every file either layout places, and nothing else.
 */
import test from 'ava';
import { createLobLayout, type LobAddress, type LobLayoutName } from '../../../src/siard/lob-placement.js';
import { rng } from '../../../fixtures/northwind.js';

function addresses(seed: number, n: number): LobAddress[] {
  const rand = rng(seed);
  const out: LobAddress[] = [];
  for (let i = 0; i < n; i++) {
    const table = Math.floor(i / 40);
    out.push({
      schema: table % 2,
      table,
      column: 1 + Math.floor(rand() * 3),
      row: 1 + (i % 40),
      extension: rand() < 0.5 ? 'bin' : 'txt',
      size: rand() < 0.05 ? 25_000 : 1 + Math.floor(rand() * 4000), // some larger than a folder: split
      ...(rand() < 0.1 ? { field: 'u2/a1' } : {}),
    });
  }
  return out;
}

for (const name of ['lobseg', 'siard22'] as LobLayoutName[]) {
  test(`${name}: a restored layout places the next LOBs where the uninterrupted one does`, (t) => {
    const limits = { maxFiles: 7, maxBytes: 10_000 };
    const lobs = addresses(38, 400);
    for (const cut of [0, 1, 39, 40, 123, 399]) {
      const whole = createLobLayout(name, 'db', limits);
      const first = createLobLayout(name, 'db', limits);
      const expected = lobs.map((l) => whole.place(l));
      lobs.slice(0, cut).forEach((l) => first.place(l));
      const restored = createLobLayout(name, 'db', limits);
      restored.restore(JSON.parse(JSON.stringify(first.snapshot())));
      t.deepEqual(
        lobs.slice(cut).map((l) => restored.place(l)),
        expected.slice(cut),
        `cut at ${cut}`,
      );
      t.is(restored.fileCount(), whole.fileCount());
      t.is(restored.segmentCount(), whole.segmentCount());
      t.deepEqual(restored.topLevelFolders(), whole.topLevelFolders());
    }
  });

  test(`${name}: tableOfFile names each placed file's table, and no other path`, (t) => {
    const layout = createLobLayout(name, 'db', { maxFiles: 7, maxBytes: 10_000 });
    for (const l of addresses(7, 200))
      for (const part of layout.place(l).parts)
        t.deepEqual(layout.tableOfFile(part.relPath), { schema: l.schema, table: l.table }, part.relPath);
    const other = createLobLayout(name, 'other', { maxFiles: 7, maxBytes: 10_000 });
    const foreign = other.place(addresses(7, 1)[0]!).parts[0]!.relPath;
    for (const p of ['db.siard', 'db.fingerprints.json', 'db_lobseg_0', 'db_lobs/s0_t0_c1', foreign])
      t.is(layout.tableOfFile(p), undefined, p);
  });
}
