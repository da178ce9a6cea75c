/**
 * Reading the stored tree without following links, through the storage's read capability:
 * validation looks at what is there, never outside the folder it was given.
 */
import type { EntryKind, ReadStorage, StorageWalk } from '../storage/storage.js';

export type { EntryKind } from '../storage/storage.js';
export type { WalkedFile, StorageWalk as WalkResult } from '../storage/storage.js';

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

/** Every regular file under `base` (sorted), empty folders and links: one call to the storage. */
export function walk(storage: ReadStorage, base: string): Promise<StorageWalk> {
  return storage.walk(base);
}

/** How a path below a displayed location is named in findings ('/'-joined for URLs, path.join for folders). */
export function displayJoin(display: string, rel: string): string {
  if (!rel) return display;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(display)) return `${display.replace(/\/+$/, '')}/${rel}`;
  return joinNative(display, rel);
}

import path from 'node:path';
const joinNative = (a: string, b: string) => path.join(a, b);
