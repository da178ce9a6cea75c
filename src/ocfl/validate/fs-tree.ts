/**
 * Reading the stored tree without following links: validation looks at what is there, never
 * outside the folder it was given.
 */
import { lstatSync, readdirSync } from 'node:fs';

export type EntryKind = 'file' | 'dir' | 'link' | 'other';

export interface TreeEntry {
  name: string;
  kind: EntryKind;
}

/**
 * Entries of a folder, sorted by name; undefined when it cannot be read. Synchronous on purpose:
 * hashing runs on other threads, and for many small folders this costs far less than promises.
 */
export async function listDir(dir: string): Promise<TreeEntry[] | undefined> {
  try {
    const dirents = readdirSync(dir, { withFileTypes: true });
    return dirents
      .map((d) => ({
        name: d.name,
        kind: (d.isSymbolicLink() ? 'link' : d.isDirectory() ? 'dir' : d.isFile() ? 'file' : 'other') as EntryKind,
      }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return undefined;
  }
}

export interface WalkedFile {
  /** '/'-separated path relative to the walk's base. */
  relative: string;
  size: number;
}

export interface WalkResult {
  files: WalkedFile[];
  /** Folders (relative) holding nothing at all. */
  emptyDirs: string[];
  /** Links and special files (relative): never followed or read. */
  links: string[];
}

/** Every regular file under `base`, iteratively (no recursion depth limit). */
export async function walk(base: string): Promise<WalkResult> {
  const result: WalkResult = { files: [], emptyDirs: [], links: [] };
  const stack: string[] = [''];
  while (stack.length > 0) {
    const rel = stack.pop()!;
    const abs = rel === '' ? base : `${base}/${rel}`;
    let dirents;
    try {
      dirents = readdirSync(abs, { withFileTypes: true });
    } catch {
      continue;
    }
    if (dirents.length === 0 && rel !== '') result.emptyDirs.push(rel);
    for (const d of dirents) {
      const childRel = rel === '' ? d.name : `${rel}/${d.name}`;
      if (d.isSymbolicLink()) result.links.push(childRel);
      else if (d.isDirectory()) stack.push(childRel);
      else if (d.isFile()) {
        // Synchronous: tens of thousands of small lstat calls cost far less this way.
        const st = lstatSync(`${abs}/${d.name}`, { throwIfNoEntry: false });
        result.files.push({ relative: childRel, size: st?.size ?? 0 });
      } else result.links.push(childRel);
    }
  }
  result.files.sort((a, b) => (a.relative < b.relative ? -1 : a.relative > b.relative ? 1 : 0));
  return result;
}
