// The fault suite (kill, load, disk-full tests): `npm run test:faults`. Kept out of `npm test`
// because it takes minutes and its random kill moments are drawn from timings measured on an
// otherwise quiet machine; serial, one file at a time.
import { tierConfig } from '../runner/ava-tier.mjs';

export default tierConfig({
  files: ['test/faults/**/*.test.ts'],
  require: ['./test/runner/file-timer.ts'],
  timeout: '10m',
  concurrency: 1,
  workerThreads: false,
});
