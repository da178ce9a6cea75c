/**
 * Reading the stored tree without following links, through the storage's read capability
 * (its walk lists every file below a folder, links and empty folders apart): validation looks at
 * what is there, never outside the folder it was given.
 */
import path from 'node:path';
import type { EntryKind, ReadStorage } from '../storage/storage.js';

export interface TreeEntry {
  name: string;
  kind: EntryKind;
}

/** Entries of a folder, sorted by name; undefined when it cannot be read. */
export async function listDir(storage: ReadStorage, dir: string): Promise<TreeEntry[] | undefined> {
  try {
    const entries = await storage.list(dir);
    return entries.map((e) => ({ name: e.name, kind: e.kind })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return undefined;
  }
}

/** How a path below a displayed location is named in findings ('/'-joined for URLs, path.join for folders). */
export function displayJoin(display: string, rel: string): string {
  if (!rel) return display;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(display)) return `${display.replace(/\/+$/, '')}/${rel}`;
  return path.join(display, rel);
}
