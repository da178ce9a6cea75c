/**
 * The canonical bytes of an inventory (keys sorted at every level, versions in numeric order, path
 * lists sorted, the layout of JSON.stringify(..., null, 2)) produced as a generator of pieces of a
 * few MB: a commit writes each piece to the file and hashes it for the sidecar as it comes, so the
 * ~620 MB of a million-file inventory never sit in memory at once.
 *
 * The input is an InventorySource: the header fields and, for each digest -> paths block (manifest,
 * fixity, each version's state), a function giving its entries in order. An Inventory of JavaScript
 * objects is one source (sourceOfInventory); a staged version gives its blocks straight from its own
 * compact state, without building the Inventory (see staged-inventory.ts). The serialisation is
 * that of the OCFL fixtures and ocfl-py (2-space indentation).
 */
import { JsonMembers, JsonPieces } from './large-json.js';
import type { Inventory, User } from './inventory.js';
import { versionNumber } from './inventory.js';

/** Entries of one digest -> paths block: keys in code-unit order, each path list sorted. */
export type PathBlock = () => Iterable<readonly [string, readonly string[]]>;

export interface VersionSource {
  created: string;
  message?: string;
  user?: User;
  state: PathBlock;
}

export interface InventorySource {
  contentDirectory?: string;
  digestAlgorithm: string;
  head: string;
  id: string;
  type: string;
  /** Algorithm -> block, algorithms in code-unit order; none (or an empty list): no fixity member. */
  fixity?: ReadonlyArray<readonly [string, PathBlock]>;
  manifest: PathBlock;
  /** In numeric order of the names. */
  versions: ReadonlyArray<readonly [string, VersionSource]>;
}

export const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** A list of paths at `indent` (the list's own line), as JSON.stringify writes an array of strings. */
function putPaths(out: JsonPieces, paths: readonly string[], indent: string): void {
  if (paths.length === 0) return out.put('[]');
  const inner = indent + '  ';
  out.put('[\n');
  for (let i = 0; i < paths.length; i++) out.put(`${inner}${JSON.stringify(paths[i])}${i < paths.length - 1 ? ',\n' : '\n'}`);
  out.put(`${indent}]`);
}

/** The inventory's bytes, piece by piece (each a few MB; their concatenation is the whole file). */
export function* inventoryChunks(src: InventorySource): Generator<Buffer> {
  const ready: Buffer[] = [];
  const out = new JsonPieces((piece) => ready.push(piece));
  function* drain(): Generator<Buffer> {
    for (const piece of ready.splice(0)) yield piece;
  }
  function* block(entries: PathBlock, indent: string): Generator<Buffer> {
    const members = new JsonMembers(out, indent);
    for (const [key, paths] of entries()) {
      members.key(key);
      putPaths(out, paths, members.inner);
      if (ready.length > 0) yield* drain();
    }
    members.close();
  }
  const top = new JsonMembers(out, '');
  const field = (name: string, value: string | undefined) => {
    if (value === undefined) return;
    top.key(name);
    out.put(JSON.stringify(value));
  };
  field('contentDirectory', src.contentDirectory);
  field('digestAlgorithm', src.digestAlgorithm);
  if (src.fixity && src.fixity.length > 0) {
    top.key('fixity');
    const algorithms = new JsonMembers(out, top.inner);
    for (const [alg, entries] of src.fixity) {
      algorithms.key(alg);
      yield* block(entries, algorithms.inner);
    }
    algorithms.close();
  }
  field('head', src.head);
  field('id', src.id);
  top.key('manifest');
  yield* block(src.manifest, top.inner);
  field('type', src.type);
  top.key('versions');
  const versions = new JsonMembers(out, top.inner);
  for (const [name, v] of src.versions) {
    versions.key(name);
    const fields = new JsonMembers(out, versions.inner);
    fields.key('created');
    out.put(JSON.stringify(v.created));
    if (v.message !== undefined) {
      fields.key('message');
      out.put(JSON.stringify(v.message));
    }
    fields.key('state');
    yield* block(v.state, fields.inner);
    if (v.user !== undefined) {
      fields.key('user');
      const user = v.user as unknown as Record<string, unknown>;
      out.object(
        Object.keys(user)
          .sort(byCodeUnit)
          .map((k) => [k, user[k]] as const),
        fields.inner,
        (x, i) => out.value(x, i),
      );
    }
    fields.close();
  }
  versions.close();
  top.close();
  out.done();
  yield* drain();
}

/** A block of JavaScript objects: keys sorted once, path lists sorted as they are written (no sorted copy of the block). */
function blockOfRecord(map: Record<string, string[]>): PathBlock {
  return function* () {
    for (const key of Object.keys(map).sort(byCodeUnit)) {
      const paths = map[key]!;
      yield [key, paths.length > 1 ? [...paths].sort(byCodeUnit) : paths] as const;
    }
  };
}

/** An Inventory of JavaScript objects as a source of its canonical bytes. */
export function sourceOfInventory(inv: Inventory): InventorySource {
  const fixity = inv.fixity ?? {};
  return {
    ...(inv.contentDirectory !== undefined ? { contentDirectory: inv.contentDirectory } : {}),
    digestAlgorithm: inv.digestAlgorithm,
    head: inv.head,
    id: inv.id,
    type: inv.type,
    fixity: Object.keys(fixity)
      .sort(byCodeUnit)
      .map((alg) => [alg, blockOfRecord(fixity[alg]!)] as const),
    manifest: blockOfRecord(inv.manifest),
    versions: Object.keys(inv.versions)
      .sort((a, b) => versionNumber(a) - versionNumber(b))
      .map((name) => {
        const v = inv.versions[name]!;
        const version: VersionSource = { created: v.created, state: blockOfRecord(v.state) };
        if (v.message !== undefined) version.message = v.message;
        if (v.user !== undefined) version.user = v.user;
        return [name, version] as const;
      }),
  };
}

/**
 * The canonical bytes of an inventory, in pieces: same inventory, same bytes. Written piece by
 * piece: the inventory of a million files is more JSON than one JavaScript string can hold.
 */
function inventoryPieces(inv: Inventory): Buffer[] {
  return [...inventoryChunks(sourceOfInventory(inv))];
}

/** The canonical bytes of an inventory: same inventory, same bytes (see inventoryPieces). */
export function serializeInventory(inv: Inventory): Buffer {
  const pieces = inventoryPieces(inv);
  return pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
}
