/**
 * The objects of a storage root listed by its layout, without opening them: under extension 0003
 * an object's folder lies at depth numberOfTuples and its name is its percent-encoded id, so the
 * ids come from folder names (a root of 10,000 objects: some 23,000 folder listings, no inventory
 * read). A name is taken as an id only when the layout maps that id back to exactly this path
 * (tuples included); a name cut for length (over 100 characters) names no whole id, and only the
 * object's inventory can tell it. Whether a folder holds an object, and the object the id its
 * inventory declares, is for the reader of that object to check.
 *
 * A root whose tree is not the layout's (a folder at a tuple level that is no tuple) is not
 * listed here: the caller scans it (OcflStorageRoot.scanObjects), which finds objects anywhere.
 * The tree is read by the storage's outline: many folders at once, or pages of keys.
 */
import type { ReadStorage } from '../storage/storage.js';
import { HashAndIdNTupleLayout } from './hash-and-id-n-tuple-layout.js';
import type { StorageLayout } from './storage-layout.js';

export interface LaidOutObject {
  /** the object's folder, relative to the storage root */
  path: string;
  /** the id the folder's name encodes; absent when the name is cut (a long id) or names no id */
  id?: string;
  /** the name is cut for length: the id is the inventory's to tell (and must map to this path) */
  cut?: true;
  /** why the folder is where no id is placed by the layout: one sentence */
  problem?: string;
}

/** Names longer than this are cut by 0003 (its MAX_ENCODED_LENGTH). */
const LONGEST_NAME = 100;

/**
 * Every folder where the root's layout puts objects, with the id its name encodes, in no
 * particular order; undefined when the layout has no names to read ids from (not 0003) or the
 * tree is not the layout's.
 */
export async function listByLayout(storage: ReadStorage, layout: StorageLayout | undefined): Promise<LaidOutObject[] | undefined> {
  if (!(layout instanceof HashAndIdNTupleLayout)) return undefined;
  const { tupleSize, numberOfTuples } = layout.config;
  const tuple = new RegExp(`^[0-9a-f]{${tupleSize}}$`);
  const out: LaidOutObject[] = [];
  for (const e of await storage.outline('', numberOfTuples + 1)) {
    const parts = e.path.split('/');
    if (parts[0] === 'extensions' || (parts.length === 1 && !e.isDirectory)) continue; // the root's own
    const object = e.isDirectory && parts.length === numberOfTuples + 1;
    // Every folder on the way to an object, to a file or to an empty folder is a tuple, or the tree is not the layout's.
    if (!(object || !e.isDirectory ? parts.slice(0, -1) : parts).every((p) => tuple.test(p))) return undefined;
    if (object) out.push(laidOut(layout, e.path, parts[parts.length - 1]!));
  }
  return out;
}

/** What a folder's name says of the id of the object in it. */
function laidOut(layout: HashAndIdNTupleLayout, at: string, name: string): LaidOutObject {
  if (name.length > LONGEST_NAME) {
    // A cut name is the encoded id's first 100 characters, '-' and the id's whole digest.
    const digest = name.slice(LONGEST_NAME + 1);
    const tuples = at.split('/').slice(0, -1).join('');
    if (name[LONGEST_NAME] === '-' && /^[0-9a-f]+$/.test(digest) && digest.startsWith(tuples)) return { path: at, cut: true };
    return { path: at, problem: `The folder name ${name} is no id encoded by the storage layout.` };
  }
  const id = decodeName(name);
  if (id === undefined) return { path: at, problem: `The folder name ${name} is no id encoded by the storage layout.` };
  let placed: string;
  try {
    placed = layout.objectPath(id);
  } catch (err) {
    return { path: at, problem: (err as Error).message };
  }
  if (placed !== at) return { path: at, problem: `The storage layout puts object "${id}" at ${placed}, not here.` };
  return { path: at, id };
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The id a 0003 folder name percent-encodes (its UTF-8 bytes), or undefined when it encodes none. */
function decodeName(name: string): string | undefined {
  if (!/^(?:[A-Za-z0-9_-]|%[0-9a-f]{2})+$/.test(name)) return undefined;
  const bytes: number[] = [];
  for (let i = 0; i < name.length; i++) {
    if (name[i] === '%') {
      bytes.push(parseInt(name.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(name.charCodeAt(i));
  }
  try {
    return UTF8.decode(Uint8Array.from(bytes));
  } catch {
    return undefined;
  }
}
