/** Every inventory.json below a folder (the OCFL conformance fixtures hold about a hundred). */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

export function inventoriesUnder(dir: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = path.join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name === 'inventory.json') found.push(p);
    }
  };
  walk(dir);
  return found;
}
