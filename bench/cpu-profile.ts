/**
 * The top entries of a V8 CPU profile (`node --cpu-prof`): self time per function, summed over
 * the profile's samples, as lines for a bench's notes. Native work (SQLite, zlib's synchronous
 * part) shows under the JavaScript function that called it; "(idle)" is the main thread waiting.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time of the `count` costliest functions of the one .cpuprofile in `dir`, one line each. */
export function profileTop(dir: string, count: number): string[] {
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) return ['(no profile written)'];
  const profile = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as CpuProfile;
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const micros = profile.timeDeltas[i] ?? 0;
    total += micros;
    const frame = nodes.get(id)!.callFrame;
    const where = frame.url ? ` ${frame.url.split('/').slice(-2).join('/')}:${frame.lineNumber + 1}` : '';
    const key = `${frame.functionName || '(anonymous)'}${where}`;
    self.set(key, (self.get(key) ?? 0) + micros);
  });
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([key, micros]) => `${((100 * micros) / total).toFixed(1).padStart(5)}% ${(micros / 1000).toFixed(0).padStart(6)} ms  ${key}`);
}
