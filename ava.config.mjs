// The whole suite but the fault suite (`npm test`; test/README.md says what runs where and why):
// the unit, integration and line tiers. Run a single file with `npx ava <file>`.
import { tierConfig } from './test/runner/ava-tier.mjs';
import path from 'node:path';

// The files that take longest start first, so that none of them starts last and runs alone while
// the other worker idles (measured by the runner's report of slowest files; order only, no effect
// on what is tested).
// s3-backends comes after scale: it waits for the Ceph gateway, which answers 20-60 s after the run
// starts, and a worker started on it at once would idle that long.
const LONGEST_FIRST = [
  // On lines without a better-sqlite3 12.x binary (22, 24) it compiles one for the tarball: 111 s of
  // CPU after it waits for tsc; started last, it ran alone for the last 87 s of a CI run on Node 24.
  'test/line/packed-tarball.test.ts',
  'test/integration/resegment-samples.test.ts',
  'test/integration/scale.test.ts',
  'test/integration/s3-backends.test.ts',
  'test/integration/hostile/hostile.test.ts',
  'test/integration/segmented-siard-read.test.ts',
  'test/integration/resegment-ingest.test.ts',
  'test/integration/mets-ocfl.test.ts',
];

const rank = (file) => {
  const i = LONGEST_FIRST.indexOf(path.relative(process.cwd(), file).split(path.sep).join('/'));
  return i < 0 ? LONGEST_FIRST.length : i;
};

export default tierConfig({
  files: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/line/**/*.test.ts'],
  require: ['./test/runner/file-timer.ts'],
  timeout: '15m',
  // Four files at once on two cores: while some wait (a server, a child's start-up, a lease running
  // out), the others keep both cores busy. Fresh clones beside niced helper sessions: at three,
  // 2.67 files ran at once on average and the run used 175% of the 200%; at four, 3.52 and 177%,
  // with fewer than two files running for 14 s instead of 44 (test/README.md has the runs).
  concurrency: 4,
  workerThreads: false,
  sortTestFiles: (a, b) => rank(a) - rank(b) || a.localeCompare(b, [], { numeric: true }),
});
