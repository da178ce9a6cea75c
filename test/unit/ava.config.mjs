// The unit tier (`npm run test:unit`): tests that start no child process and no server, each the
// test of the module at the same path under src/ (test/README.md). test/runner/no-child-process.ts
// makes starting a process fail here.
import { tierConfig } from '../runner/ava-tier.mjs';

export default tierConfig({
  files: ['test/unit/**/*.test.ts'],
  require: ['./test/runner/no-child-process.ts', './test/runner/file-timer.ts'],
  timeout: '5m',
  concurrency: 2,
  workerThreads: false,
});
