/**
 * An inventory read in place: its bytes kept, its manifest and states indexed by offsets into
 * them, and strings made only when asked for. The inventory of a million files is ~600 MB of JSON;
 * parsed into JavaScript objects it took 840 bytes per file more (3 GiB peak for `show`). Here the
 * indexes cost ~30 bytes per file of each version read.
 *
 * Only inventories of the plain shape are read this way (see path-block-scan.ts); for any other
 * `InventoryView.from` answers undefined and the caller parses the bytes in full, which words
 * the error when there is one. Every check parseInventory makes is made here too (the header
 * fields through inventoryFromJson itself), so a reader accepts exactly what it accepted before.
 */
import { isUtf8 } from 'node:buffer';
import { SiardOcflError } from '../errors.js';
import { inventoryFromJson, versionNumber, type InventoryVersionSummary } from './inventory.js';
import { objectMembers, parseJsonRange, topLevelObject } from './large-json.js';
import { setOwn } from './json-bytes.js';
import { scanPathBlock, type ScannedBlock } from './path-block-scan.js';

const HEX_LENGTH: Record<string, number> = { sha512: 128, sha256: 64 };

/** Members of the object bytes[start, end), or undefined when a key repeats (JSON.parse keeps the last: the full parse decides). */
function uniqueMembers(bytes: Buffer, start: number, end: number): Map<string, { start: number; end: number }> | undefined {
  const out = new Map<string, { start: number; end: number }>();
  for (const m of objectMembers(bytes, start, end)) {
    if (out.has(m.key)) return undefined;
    out.set(m.key, m);
  }
  return out;
}

/** A power-of-two open-addressing table of entry indexes (-1: empty), sized for `n` entries. */
function emptyTable(n: number): Int32Array {
  let size = 16;
  while (size < n * 2) size *= 2;
  return new Int32Array(size).fill(-1);
}

/** FNV-1a of bytes[start, end). */
function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

/** One version's logical state over the inventory bytes: logical path -> digest, in code-unit order of the paths. */
class StateView implements ReadonlyMap<string, string> {
  /** Path indexes of the scanned block in code-unit order of the paths, a path listed twice kept once (its last digest). */
  private readonly order: Int32Array;
  private readonly table: Int32Array;
  /** Key index (into the block's keys) of each path. */
  private readonly keyOf: Uint32Array;

  constructor(
    private readonly bytes: Buffer,
    private readonly block: ScannedBlock,
  ) {
    const { firstPath, pathStart, pathEnd } = block;
    const n = pathStart.length;
    this.keyOf = new Uint32Array(n);
    for (let k = 0; k + 1 < firstPath.length; k++) this.keyOf.fill(k, firstPath[k], firstPath[k + 1]);
    const indexes = Array.from({ length: n }, (_, i) => i);
    // UTF-8 byte order is code-point order, which differs from JavaScript's code-unit order only
    // between characters above U+FFFF and U+E000-U+FFFF (bytes from 0xEE): those states sort as strings.
    let asStrings = false;
    for (let p = 0; p < n && !asStrings; p++) for (let i = pathStart[p]!; i < pathEnd[p]!; i++) if (bytes[i]! >= 0xee) asStrings = true;
    if (asStrings) {
      const names = indexes.map((p) => this.pathAt(p));
      indexes.sort((a, b) => (names[a]! < names[b]! ? -1 : names[a]! > names[b]! ? 1 : 0));
    } else {
      indexes.sort((a, b) => bytes.compare(bytes, pathStart[b]!, pathEnd[b]!, pathStart[a]!, pathEnd[a]!));
    }
    // The sort is stable: of paths listed twice, the last listed wins, as in a Map built in order.
    const kept: number[] = [];
    for (let j = 0; j < indexes.length; j++) {
      const p = indexes[j]!;
      const next = indexes[j + 1];
      if (next !== undefined && this.samePath(p, next)) continue;
      kept.push(p);
    }
    this.order = Int32Array.from(kept);
    this.table = emptyTable(kept.length);
    const mask = this.table.length - 1;
    for (const p of kept) {
      let slot = hashBytes(bytes, pathStart[p]!, pathEnd[p]!) & mask;
      while (this.table[slot] !== -1) slot = (slot + 1) & mask;
      this.table[slot] = p;
    }
  }

  private samePath(a: number, b: number): boolean {
    const { pathStart, pathEnd } = this.block;
    return this.bytes.compare(this.bytes, pathStart[b]!, pathEnd[b]!, pathStart[a]!, pathEnd[a]!) === 0;
  }

  private pathAt(p: number): string {
    return this.bytes.toString('utf8', this.block.pathStart[p], this.block.pathEnd[p]);
  }

  private digestAt(p: number): string {
    const k = this.keyOf[p]!;
    return this.bytes.toString('latin1', this.block.keyStart[k], this.block.keyEnd[k]);
  }

  private find(logicalPath: string): number {
    const query = Buffer.from(logicalPath, 'utf8');
    const { pathStart, pathEnd } = this.block;
    const mask = this.table.length - 1;
    for (let slot = hashBytes(query, 0, query.length) & mask; ; slot = (slot + 1) & mask) {
      const p = this.table[slot]!;
      if (p === -1) return -1;
      if (pathEnd[p]! - pathStart[p]! === query.length && this.bytes.compare(query, 0, query.length, pathStart[p], pathEnd[p]) === 0) return p;
    }
  }

  get size(): number {
    return this.order.length;
  }

  get(logicalPath: string): string | undefined {
    const p = this.find(logicalPath);
    return p < 0 ? undefined : this.digestAt(p);
  }

  has(logicalPath: string): boolean {
    return this.find(logicalPath) >= 0;
  }

  *entries(): MapIterator<[string, string]> {
    for (const p of this.order) yield [this.pathAt(p), this.digestAt(p)];
  }

  *keys(): MapIterator<string> {
    for (const p of this.order) yield this.pathAt(p);
  }

  *values(): MapIterator<string> {
    for (const p of this.order) yield this.digestAt(p);
  }

  [Symbol.iterator](): MapIterator<[string, string]> {
    return this.entries();
  }

  forEach(callback: (value: string, key: string, map: ReadonlyMap<string, string>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this);
  }
}

interface VersionPlace {
  summary: InventoryVersionSummary;
  state: ScannedBlock;
}

export class InventoryView {
  private readonly states = new Map<string, StateView>();

  private constructor(
    /** The inventory's bytes, kept: every string is read from them when asked for. */
    readonly bytes: Buffer,
    readonly id: string,
    readonly type: string,
    readonly digestAlgorithm: string,
    readonly head: string,
    private readonly manifest: ScannedBlock,
    private readonly manifestTable: Int32Array,
    private readonly versionPlaces: Map<string, VersionPlace>,
  ) {}

  /** The view of inventory bytes, or undefined when they are not of the plain shape (parse them in full). `where` names the file in messages. */
  static from(bytes: Buffer, where: string): InventoryView | undefined {
    if (!isUtf8(bytes)) return undefined;
    try {
      return InventoryView.read(bytes, where);
    } catch (err) {
      if (err instanceof SyntaxError) return undefined; // the full parse words it
      throw err;
    }
  }

  private static read(bytes: Buffer, where: string): InventoryView | undefined {
    const top = topLevelObject(bytes);
    const members = uniqueMembers(bytes, top.start, top.end);
    if (!members) return undefined;
    // The fields the header checks need, the large blocks stood in for by empty ones once scanned.
    const skeleton: Record<string, unknown> = {};
    for (const [key, m] of members) if (key !== 'manifest' && key !== 'versions' && key !== 'fixity') setOwn(skeleton, key, parseJsonRange(bytes, m.start, m.end));
    const alg = typeof skeleton.digestAlgorithm === 'string' ? skeleton.digestAlgorithm : '';
    const hexKeyLength = HEX_LENGTH[alg];
    const manifestAt = members.get('manifest');
    const versionsAt = members.get('versions');
    if (hexKeyLength === undefined || !manifestAt || !versionsAt || bytes[versionsAt.start] !== 0x7b) return undefined;
    const manifest = scanPathBlock(bytes, manifestAt.start, manifestAt.end, { hexKeyLength });
    if (!manifest) return undefined;
    skeleton.manifest = {};
    const fixityAt = members.get('fixity');
    if (fixityAt) {
      if (bytes[fixityAt.start] !== 0x7b) return undefined;
      const blocks = uniqueMembers(bytes, fixityAt.start, fixityAt.end);
      if (!blocks) return undefined;
      const fixity: Record<string, unknown> = {};
      for (const [name, b] of blocks) {
        if (name === '__proto__' || !scanPathBlock(bytes, b.start, b.end, {})) return undefined;
        fixity[name] = {};
      }
      skeleton.fixity = fixity;
    }
    const versions: Record<string, unknown> = {};
    const stateBlocks = new Map<string, ScannedBlock>();
    const versionMembers = uniqueMembers(bytes, versionsAt.start, versionsAt.end);
    if (!versionMembers) return undefined;
    for (const [name, v] of versionMembers) {
      if (name === '__proto__' || bytes[v.start] !== 0x7b) return undefined;
      const fields = uniqueMembers(bytes, v.start, v.end);
      const stateAt = fields?.get('state');
      if (!fields || !stateAt) return undefined;
      const state = scanPathBlock(bytes, stateAt.start, stateAt.end, { hexKeyLength });
      if (!state) return undefined;
      stateBlocks.set(name, state);
      const version: Record<string, unknown> = { state: {} };
      for (const [key, f] of fields) if (key !== 'state') setOwn(version, key, parseJsonRange(bytes, f.start, f.end));
      versions[name] = version;
    }
    skeleton.versions = versions;
    // The same checks as a full parse, on the same values (throws InventoryError as it does).
    const checked = inventoryFromJson(skeleton, where);
    const manifestTable = InventoryView.indexManifest(bytes, manifest);
    if (!manifestTable) return undefined;
    const places = new Map<string, VersionPlace>();
    for (const name of Object.keys(checked.versions).sort((a, b) => versionNumber(a) - versionNumber(b))) {
      const state = stateBlocks.get(name)!;
      if (!InventoryView.digestsOnce(bytes, state, manifest, manifestTable)) return undefined;
      const info = checked.versions[name]!;
      const summary: InventoryVersionSummary = { version: name, created: info.created, fileCount: state.pathStart.length };
      if (info.message !== undefined) summary.message = info.message;
      if (info.user !== undefined) summary.user = info.user;
      places.set(name, { summary, state });
    }
    return new InventoryView(bytes, checked.id, checked.type, checked.digestAlgorithm, checked.head, manifest, manifestTable, places);
  }

  /** The manifest's keys by hash, or undefined when a digest repeats (JSON.parse keeps the last: the full parse decides). */
  private static indexManifest(bytes: Buffer, manifest: ScannedBlock): Int32Array | undefined {
    const table = emptyTable(manifest.keyStart.length);
    const mask = table.length - 1;
    for (let k = 0; k < manifest.keyStart.length; k++) {
      const start = manifest.keyStart[k]!;
      const end = manifest.keyEnd[k]!;
      let slot = hashBytes(bytes, start, end) & mask;
      for (;;) {
        const other = table[slot]!;
        if (other === -1) break;
        if (bytes.compare(bytes, manifest.keyStart[other], manifest.keyEnd[other], start, end) === 0) return undefined;
        slot = (slot + 1) & mask;
      }
      table[slot] = k;
    }
    return table;
  }

  /** Whether each digest of a state appears once and is in the manifest (otherwise the full parse reads it as before). */
  private static digestsOnce(bytes: Buffer, state: ScannedBlock, manifest: ScannedBlock, table: Int32Array): boolean {
    const seen = new Uint8Array(manifest.keyStart.length);
    for (let k = 0; k < state.keyStart.length; k++) {
      const m = InventoryView.lookup(bytes, manifest, table, bytes, state.keyStart[k]!, state.keyEnd[k]!);
      if (m < 0 || seen[m]) return false;
      seen[m] = 1;
    }
    return true;
  }

  /** Index of the manifest key equal to source[start, end), or -1. */
  private static lookup(bytes: Buffer, manifest: ScannedBlock, table: Int32Array, source: Uint8Array, start: number, end: number): number {
    const mask = table.length - 1;
    const length = end - start;
    for (let slot = hashBytes(source, start, end) & mask; ; slot = (slot + 1) & mask) {
      const k = table[slot]!;
      if (k === -1) return -1;
      const ks = manifest.keyStart[k]!;
      if (manifest.keyEnd[k]! - ks === length && bytes.compare(source, start, end, ks, ks + length) === 0) return k;
    }
  }

  /** The versions in numeric order: metadata and file counts. */
  versions(): InventoryVersionSummary[] {
    return [...this.versionPlaces.values()].map((p) => p.summary);
  }

  hasVersion(version: string): boolean {
    return this.versionPlaces.has(version);
  }

  /** logical path -> digest of a version, built on first use and kept. */
  state(version = this.head): ReadonlyMap<string, string> {
    let state = this.states.get(version);
    if (!state) {
      const place = this.versionPlaces.get(version);
      if (!place) throw new SiardOcflError(`Object "${this.id}" has no version ${version} (head is ${this.head}).`, { code: 'NO_SUCH_VERSION' });
      state = new StateView(this.bytes, place.state);
      this.states.set(version, state);
    }
    return state;
  }

  /** Content paths of a lower-case digest, or undefined when the manifest lacks it. */
  manifestPaths(digest: string): string[] | undefined {
    const query = Buffer.from(digest, 'latin1');
    const k = InventoryView.lookup(this.bytes, this.manifest, this.manifestTable, query, 0, query.length);
    if (k < 0) return undefined;
    const out: string[] = [];
    for (let p = this.manifest.firstPath[k]!; p < this.manifest.firstPath[k + 1]!; p++) {
      out.push(this.bytes.toString('utf8', this.manifest.pathStart[p], this.manifest.pathEnd[p]));
    }
    return out;
  }
}
