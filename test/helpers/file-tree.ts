/** Small folders of files written from, and read back into, plain objects (the S3 tests' sources and checkouts). */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Writes `files` (relative path -> content) under `dir`; returns `dir`. */
export function writeTree(dir: string, files: Record<string, string | Buffer>): string {
  for (const [p, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    writeFileSync(path.join(dir, p), content);
  }
  return dir;
}

/** Every file under `dir`, by relative POSIX path, its bytes as base64 (for deepEqual of two trees). */
export function readTree(dir: string, base = dir): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) Object.assign(out, readTree(p, base));
    else out[path.relative(base, p).split(path.sep).join('/')] = readFileSync(p).toString('base64');
  }
  return out;
}

/** relative POSIX path -> SHA-256 (node:crypto, not the code under test) of every file under `dir`, hidden ones included. */
export function treeDigests(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(child);
      else
        out.set(
          child,
          createHash('sha256')
            .update(readFileSync(path.join(dir, child)))
            .digest('hex'),
        );
    }
  };
  walk('');
  return out;
}
