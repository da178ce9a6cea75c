/**
 * Loaded by ava in every worker of the unit tier (test/unit/ava.config.mjs): a unit test starts no
 * child process and so no server. Every way node:child_process starts one throws here, so a test
 * that does belongs in test/integration/ and is moved there rather than slowing the fast tier.
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

const STARTERS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;

for (const name of STARTERS) {
  (childProcess as unknown as Record<string, unknown>)[name] = () => {
    throw new Error(`unit tests start no child process (child_process.${name}); this test belongs in test/integration/`);
  };
}
// ESM named imports (`import { spawn } from 'node:child_process'`) see the replaced functions too.
syncBuiltinESMExports();
