/**
 * Files in the LOB folders that no cell references: the audit reports them as warnings (the
 * arkade5 samples each carry one `unreferenced-file.bin` on purpose).
 *
 * Which folders count as LOB folders, from the parts the cells did reference:
 * - a lobseg tree: the whole `[db]_lobseg_[h]` folder, and every sibling `[db]_lobseg_[n]`;
 * - a siard22 tree: the whole `[db]_lobs` folder;
 * - otherwise the folder holding a referenced file (SiardGui `lobs/blobs/`, Full Convert `seg0/`).
 * Inside the .siard: every file under `content/` except the tables' XML and XSD.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { LobPart } from '../lob-location.js';
import type { SiardReader } from './siard-reader.js';

export interface UnreferencedLobFiles {
  /** entries inside the .siard (relative to its SIARD root) */
  internal: string[];
  /** paths relative to the package folder */
  external: string[];
}

/** Listing of package folders (the OCFL audit supplies one over logical paths). */
export interface PackageLister {
  /** files under `folder`, recursively, as POSIX paths relative to it; [] when absent */
  files(folder: string): Promise<string[]>;
  /** names of the folders directly inside `folder`; [] when absent */
  subfolders(folder: string): Promise<string[]>;
}

function lobRootOf(p: string): { root: string; lobsegPrefix?: string; parent: string } {
  const parts = p.split('/');
  for (let i = 0; i < parts.length - 1; i++) {
    const m = /^(.*_lobseg_)\d+$/.exec(parts[i]!);
    if (m) return { root: parts.slice(0, i + 1).join('/'), lobsegPrefix: m[1]!, parent: parts.slice(0, i).join('/') };
    if (/_lobs$/.test(parts[i]!)) return { root: parts.slice(0, i + 1).join('/'), parent: parts.slice(0, i).join('/') };
  }
  return { root: parts.slice(0, -1).join('/'), parent: parts.slice(0, -2).join('/') };
}

export async function findUnreferencedLobFiles(
  reader: SiardReader,
  /** where the parts are is all that counts (an audit passes them without their rule) */
  referenced: Iterable<
    Pick<Extract<LobPart, { kind: 'internal' }>, 'kind' | 'entry'> | Pick<Extract<LobPart, { kind: 'external' }>, 'kind' | 'path'>
  >,
  list: PackageLister = fileSystemLister(reader.packageDir),
): Promise<UnreferencedLobFiles> {
  const internalRefs = new Set<string>();
  const externalRefs = new Set<string>();
  for (const p of referenced) (p.kind === 'internal' ? internalRefs : externalRefs).add(p.kind === 'internal' ? p.entry : p.path);

  const tableFiles = new Set<string>();
  for (const t of reader.tables()) {
    const name = t.folder.slice(t.folder.lastIndexOf('/') + 1);
    tableFiles.add(`${t.folder}/${name}.xml`);
    tableFiles.add(`${t.folder}/${name}.xsd`);
  }
  const internal = reader.zip.entries
    .filter((e) => !e.isDirectory && e.name.startsWith(`${reader.root}content/`))
    .map((e) => e.name.slice(reader.root.length))
    .filter((n) => !tableFiles.has(n) && !internalRefs.has(n))
    .sort();

  const roots = new Set<string>();
  const lobsegSiblings = new Map<string, string>(); // parent folder -> prefix
  for (const p of externalRefs) {
    const r = lobRootOf(p);
    roots.add(r.root);
    if (r.lobsegPrefix !== undefined) lobsegSiblings.set(`${r.parent}\u0000${r.lobsegPrefix}`, r.parent);
  }
  for (const [key, parent] of lobsegSiblings) {
    const prefix = key.slice(key.indexOf('\u0000') + 1);
    const base = prefix.slice(prefix.lastIndexOf('/') + 1);
    for (const first of await list.subfolders(parent)) {
      if (first.startsWith(base) && /^\d+$/.test(first.slice(base.length))) roots.add(parent ? `${parent}/${first}` : first);
    }
  }
  const external = new Set<string>();
  for (const root of roots) {
    for (const f of await list.files(root)) {
      const full = root ? `${root}/${f}` : f;
      if (!externalRefs.has(full)) external.add(full);
    }
  }
  return { internal, external: [...external].sort() };
}

/** Listing on disk, inside the package folder only, not following symbolic links. */
function fileSystemLister(packageDir: string): PackageLister {
  const inside = (folder: string): string | undefined => {
    const base = path.join(packageDir, ...folder.split('/').filter((s) => s !== ''));
    const rel = path.relative(packageDir, base);
    return rel.startsWith('..') || path.isAbsolute(rel) ? undefined : base;
  };
  const subfolders = async (folder: string): Promise<string[]> => {
    const base = inside(folder);
    if (base === undefined) return [];
    try {
      return (await readdir(base, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
    } catch {
      return [];
    }
  };
  const files = async (folder: string): Promise<string[]> => {
    const base = inside(folder);
    if (base === undefined) return [];
    const out: string[] = [];
    async function walk(dir: string, prefix: string): Promise<void> {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        const name = prefix ? `${prefix}/${e.name}` : e.name;
        if (e.isDirectory()) await walk(path.join(dir, e.name), name);
        else if (e.isFile()) out.push(name);
      }
    }
    await walk(base, '');
    return out;
  };
  return { files, subfolders };
}

/**
 * A PackageLister over a known set of package paths (e.g. the logical paths of an OCFL state). The
 * paths are sorted once (by UTF-16 code units, as startsWith compares) so that a folder's files are
 * one contiguous run found by binary search: an audit lists every segment folder of an object, and a
 * scan of all paths per folder cost 24 s of CPU at 47,000 paths in 15,000 folders.
 */
export function pathListLister(paths: Iterable<string>): PackageLister {
  let sorted: string[] | undefined;
  const under = (folder: string) => (folder === '' ? '' : `${folder.replace(/\/+$/, '')}/`);
  /** the paths that start with `prefix`, as a run of the sorted list */
  function* startingWith(prefix: string): Generator<string> {
    sorted ??= [...paths].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < sorted.length && sorted[i]!.startsWith(prefix); i++) yield sorted[i]!;
  }
  return {
    async files(folder) {
      const prefix = under(folder);
      return [...startingWith(prefix)].map((p) => p.slice(prefix.length));
    },
    async subfolders(folder) {
      const prefix = under(folder);
      const names = new Set<string>();
      for (const p of startingWith(prefix)) {
        const rest = p.slice(prefix.length);
        const slash = rest.indexOf('/');
        if (slash > 0) names.add(rest.slice(0, slash));
      }
      return [...names];
    },
  };
}
