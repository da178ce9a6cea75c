/** Small folders of files written from, and read back into, plain objects (the S3 tests' sources and checkouts). */
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
