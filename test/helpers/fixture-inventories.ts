/** Every inventory.json below a folder (the OCFL conformance fixtures hold about a hundred), and an object's head inventory. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { type Inventory, parseInventory } from '../../src/ocfl/inventory/inventory.js';

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

/** The head inventory of an object of a local root, as written (parsed in full). */
export function headInventory(root: { location: string; objectPath(id: string): string }, id: string): Inventory {
  return parseInventory(readFileSync(path.join(root.location, root.objectPath(id), 'inventory.json')));
}
