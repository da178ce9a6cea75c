/**
 * The arkade5 samples in ../shared lost the CR of every CRLF in their text LOB files (git
 * normalisation): a copy with CRLF put back where that restores the file's own cell digest.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { reference } from './shared.js';

const SAMPLES = reference('siard-samples');

/** Copy of a sample folder with CRLF put back in each LOB file whose own cell digest that restores. */
export function repairedCopy(file: string, work: string): string {
  const cells = execFileSync(
    'python3',
    [
      '-c',
      `import sys,zipfile,re
z=zipfile.ZipFile(sys.argv[1])
for n in z.namelist():
  if n.endswith('.xml') and '/table' in n:
    for m in re.finditer(rb'file="([^"]+)"[^>]*digest="([0-9A-Fa-f]+)"|digest="([0-9A-Fa-f]+)"[^>]*file="([^"]+)"', z.read(n)):
      f=(m.group(1) or m.group(4)).decode(); d=(m.group(2) or m.group(3)).decode().lower()
      print(f.replace('\\\\','/'), d)`,
      file,
    ],
    { encoding: 'utf8', maxBuffer: 1 << 26 },
  )
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(' ') as [string, string])
    .map(([f, d]) => [f.replace(/^(\.\.?\/)+/, ''), d] as const);
  const copy = path.join(work, `repaired-${path.relative(SAMPLES, file).replace(/[^A-Za-z0-9]+/g, '_')}`);
  execFileSync('cp', ['-r', path.dirname(file), copy]);
  const repair = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) repair(full);
      else if (!name.endsWith('.siard')) {
        const rel = path.relative(copy, full).split(path.sep).join('/');
        const wanted = new Set(cells.filter(([f]) => rel === f || rel.endsWith('/' + f)).map(([, d]) => d));
        const bytes = readFileSync(full);
        const crlf = Buffer.from(bytes.toString('latin1').replace(/\r?\n/g, '\r\n'), 'latin1');
        const known = (b: Buffer) => ['md5', 'sha1', 'sha256'].some((a) => wanted.has(createHash(a).update(b).digest('hex')));
        if (!known(bytes) && known(crlf)) writeFileSync(full, crlf);
      }
    }
  };
  repair(copy);
  return path.join(copy, path.basename(file));
}
