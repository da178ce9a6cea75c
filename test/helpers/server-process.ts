/** What the tests' throwaway database servers (PostgreSQL, MariaDB) share: a free port, finding a binary. */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';

/** A TCP port on 127.0.0.1 that nothing listens on now (the server binds it next). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** The first of `candidates` that exists, else what the shell finds on PATH, else undefined. */
export function findBinary(name: string, candidates: string[]): string | undefined {
  const found = candidates.find((c) => c && existsSync(c));
  if (found) return found;
  const which = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  return which.status === 0 ? which.stdout.trim() : undefined;
}
