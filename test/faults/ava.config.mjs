// The fault suite (kill, load, disk-full tests): `npm run test:faults`. Kept out of `npm test`
// because it takes minutes and its random kill moments are drawn from timings measured on an
// otherwise quiet machine; serial, one file at a time.
export default {
  files: ['test/faults/**/*.test.ts'],
  extensions: { ts: 'module' },
  nodeArguments: ['--import=tsx'],
  require: ['./test/runner/file-timer.ts'],
  timeout: '10m',
  concurrency: 1,
  workerThreads: false,
};
