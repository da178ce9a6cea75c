/**
 * Every access to stored bytes goes through the storage capabilities (src/ocfl/storage/storage.ts): no
 * module reads the disk with node:fs, and none joins a disk path from a storage location, except
 * the filesystem backend and the short list below of pieces that are local by nature. A new entry
 * here needs a reason; the validator and the archive verbs (audit, relocate, mets, restore) may
 * never be on it, since they must run on an object store too.
 */
import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const SRC = path.resolve('src');

const LOCAL_BY_NATURE: Record<string, string> = {
  'ocfl/storage/fs.ts': 'the filesystem backend itself',
  'ocfl/storage/direct-write.ts': 'the filesystem backend: O_DIRECT writes of large content',
  'ocfl/storage/syncfs.ts': 'the filesystem backend: syncfs(2) of the root filesystem',
  'ocfl/commit/workspace.ts': 'the workspace is a local folder where versions are staged (for any backend)',
  'ocfl/commit/workspace-choice.ts': 'chooses and checks that local workspace folder',
  'ocfl/lock/lock.ts': 'file locks of one host, in the local workspace (object stores use a lease object)',
  'ocfl/commit/stage.ts': 'put and ingest read the local files and folders the user adds',
  'failpoint.ts': 'fault-injection marker files of the crash tests',
  'ocfl/object/checkout.ts': 'writes a checkout into a local destination folder',
  'ocfl/validate/hash-file.ts': 'worker threads hash local files of a filesystem root (storage.localPath)',
  'archive/checkout.ts': 'joins split LOBs inside the local checkout folder',
  'archive/ingest.ts': 'reads the local SIARD package a user ingests',
  'archive/resumable-ingest.ts': "an ingest's resumable export in the workspace's local folder, its files renamed into the stage",
  'archive/open-archive.ts': 'opens a local .siard or package folder (restore, tables, rows); objects go through storage',
  'archive/join-segments.ts': 'joins the segments of a segmented .siard inside the local checkout folder',
  'siard/segments/segment-set-reader.ts': 'finds the segments beside a local .siard.1 (sets in objects come through storage)',
  'siard/segments/spill.ts': 'holds compressed table data in a local scratch file until its entry name is known',
  'cli/archive-source.ts': 'checks the local file a user names',
  'cli/path.ts': 'reads ids from a local file or stdin',
  'cli/template-file.ts': 'reads the describe template a user names',
  'cli/init.ts': 'reads the --layout-config file a user names',
  'archive/describe/describe.ts': 'the described copy of a bare .siard: makes the local out-dir a user names',
  'cli/put.ts': 'reads the local folder a user puts',
  'siard/export-directory.ts': 'export writes a SIARD package into a local folder',
  'siard/output-sink.ts': 'export writes a SIARD package into a local folder',
  'siard/resume/export-journal.ts': "a resumable export's journal, in the local staging folder beside its files (docs/resume.md)",
  'siard/resume/interrupted-export.ts': 'finds the interrupted exports a local out-dir holds',
  'siard/resume/file-ledger.ts': "a resumable export's files with their digests, in the local staging folder beside them",
  'read-small-file.ts': 'reads one local file as a stream (the filesystem backend, and LOB files beside a local .siard)',
  'process-alive.ts': 'reads /proc/<pid>/stat to tell an ended (zombie) process from a running one',
  'remove-tree.ts': 'removes the local folder an export staged its package in (used by siard/output-sink.ts)',
  'siard/writer.ts': 'reads the bundled metadata.xsd',
  'siard/zip/reader.ts': 'yauzl reads a local .siard by descriptor (other archives come as a ByteSource)',
  'siard/zip/fd-slicer-guard.ts': "yauzl's reads of a local .siard by descriptor, guarded (zip/reader.ts)",
  'archive/access-copy.ts': "the reading room's access copies: SQLite files in its local workspace, outside the root",
  'serve/server.ts': "makes and checks the reading room's local workspace folder (outside a folder root)",
  'siard/zip/sink.ts': 'writes a local .siard',
  'siard/reader/lob-open.ts': 'reads LOB files beside a local .siard (package folders)',
  'siard/reader/package-folder.ts': 'checks the paths of LOB files beside a local .siard (package folders)',
  'siard/reader/unreferenced.ts': 'lists the LOB folders of a local package',
  'sources/siard/provenance.ts': 'hashes the local .siard being exported from',
  'sources/access/paged-file.ts': 'Access files are local files, read page by page',
  'sources/sqlite/loader.ts': 'SQLite database files are local files',
  'sources/sqlite/raw-source.ts': 'SQLite database files are local files (verify reads the target as stored)',
  'archive/verify/pending-rows.ts': 'rows waiting for their match spill to a local scratch SQLite file',
  'sources/sqlite/sqlite-source.ts': 'SQLite database files are local files',
  'siard/check/key-index.ts': "check's key index: a temporary SQLite file in the local temporary folder",
  'siard/check/key-runs.ts': "check's key index: its sorted run files removed from the local temporary folder",
  'siard/check/run-files.ts': "check's key index: sorted runs written to and read from files in the local temporary folder",
  'siard/check/check-siard.ts': 'check of a local package: the .siard a user names, or the one in a folder',
  'cli/check.ts': 'writes the --html report to the local file a user names',
  'cli/held-output.ts': "a verb's output held in a local temporary file until the verb succeeded (diff)",
  'siard/check/check-package.ts': 'the files beside a local .siard (mapping.txt, _partNNN splits, other SIARD files)',
  'siard/check/split-siard.ts': 'the _partNNN parts of a local SIARD file split as binary parts, read as one archive',
};

/** Modules that must run on every backend: never on the list above. */
/** The one exception inside them: the worker threads' hashing of local files, reached only through storage.localPath. */
const WORKER_HASHING = 'ocfl/validate/hash-file.ts';
const EVERY_BACKEND = [
  'ocfl/validate/',
  'ocfl/object/object.ts',
  'ocfl/root.ts',
  'ocfl/commit/commit.ts',
  'archive/audit.ts',
  'archive/relocate.ts',
  'archive/mets.ts',
  'archive/restore.ts',
  'archive/storage-base.ts',
  'archive/content-hash.ts',
];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    return d.isDirectory() ? sources(p) : d.name.endsWith('.ts') ? [p] : [];
  });
}

const files = sources(SRC).map((abs) => ({ rel: path.relative(SRC, abs).split(path.sep).join('/'), text: readFileSync(abs, 'utf8') }));
const FS_IMPORT = /from\s+'(node:)?fs(\/promises)?'|import\(\s*'(node:)?fs(\/promises)?'\s*\)|from\s+'fs-extra'/;

test('only the filesystem backend and the listed local pieces import node:fs', (t) => {
  const offenders = files.filter((f) => FS_IMPORT.test(f.text) && !(f.rel in LOCAL_BY_NATURE)).map((f) => f.rel);
  t.deepEqual(offenders, [], 'these modules read or write the disk around the storage interfaces');
  const stale = Object.keys(LOCAL_BY_NATURE).filter((rel) => !files.some((f) => f.rel === rel && FS_IMPORT.test(f.text)));
  t.deepEqual(stale, [], 'allow-list entries that no longer import node:fs: remove them');
});

test('the validator and the archive verbs are never on the local list', (t) => {
  for (const rel of Object.keys(LOCAL_BY_NATURE).filter((r) => r !== WORKER_HASHING)) {
    t.false(
      EVERY_BACKEND.some((prefix) => rel.startsWith(prefix)),
      `${rel} must go through the storage interfaces`,
    );
  }
  for (const prefix of EVERY_BACKEND) {
    t.true(
      files.some((f) => f.rel.startsWith(prefix)),
      `${prefix} exists`,
    );
    for (const f of files.filter((g) => g.rel.startsWith(prefix) && g.rel !== WORKER_HASHING))
      t.false(FS_IMPORT.test(f.text), `${f.rel} imports node:fs`);
  }
});

test('no disk path is joined from a storage location outside the filesystem backend', (t) => {
  const joined = /path(\.posix)?\.(join|resolve)\([^()]*\blocation\b/;
  const offenders = files
    .filter((f) => f.rel !== 'ocfl/storage/fs.ts')
    .flatMap((f) =>
      f.text
        .split('\n')
        .map((line, i) => ({ line, i }))
        .filter(({ line }) => joined.test(line))
        .map(({ i }) => `${f.rel}:${i + 1}`),
    );
  t.deepEqual(offenders, []);
});

test('relocate and mets do not load the database drivers (no value import of ingest.ts)', (t) => {
  for (const rel of ['archive/relocate.ts', 'archive/mets.ts', 'archive/audit.ts']) {
    const text = files.find((f) => f.rel === rel)!.text;
    const valueImports = text.split('\n').filter((l) => /^import\s+(?!type\b)[^;]*from\s+'\.\/ingest\.js'/.test(l));
    t.deepEqual(valueImports, [], `${rel} imports ingest.js, which loads sqlite, pg and mariadb`);
  }
});
