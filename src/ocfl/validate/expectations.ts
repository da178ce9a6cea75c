/**
 * Each content path with the digests the inventories that name it expect of it: the root
 * inventory's first (its manifest, then each fixity block), then each earlier inventory's (its
 * manifest, then its fixity blocks) in version order. The root's are read from its model when
 * asked for. An earlier inventory nearly always expects of a path exactly what the root one does
 * (same algorithms, digests and blocks): such a path is one bit (an "echo" of the root's list),
 * and only the others keep their expectation objects (a million of those were ~600 MB).
 */
import type { ExpectedDigest } from './digest-mismatch.js';
import type { CheckedInventory } from './inventory.js';
import { PathMap } from './block-maps.js';

export interface Expectation extends ExpectedDigest {
  where: string;
}

/** Paths of the root manifest, one bit each (its paths are numbered: block-maps.ts; an inventory without a manifest has none). */
class RootPathSet {
  private readonly paths?: PathMap<string>;
  private readonly bits: Uint8Array;

  constructor(manifest: ReadonlyMap<string, string>) {
    this.paths = manifest instanceof PathMap ? manifest : undefined;
    this.bits = new Uint8Array(this.paths?.paths.start.length ?? 0);
  }

  /** Adds p, a path of the root manifest. */
  add(p: string): void {
    this.bits[this.paths!.pathNumber(p)] = 1;
  }

  has(p: string): boolean {
    const n = this.paths?.pathNumber(p) ?? -1;
    return n >= 0 && this.bits[n] === 1;
  }
}

/** What one earlier inventory expects: echoed paths, and the lists of the others. */
interface EarlierInventory {
  where: string;
  echo?: RootPathSet;
  own: Map<string, Expectation[]>;
}

/** Two lists of expectations alike but for where they come from. */
function sameExpectations(a: readonly Expectation[], b: readonly Expectation[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.algorithm !== y.algorithm || x.digest !== y.digest || x.block !== y.block) return false;
  }
  return true;
}

export class Expectations {
  private readonly earlier: EarlierInventory[] = [];

  constructor(
    private readonly root: CheckedInventory,
    private readonly rootWhere: string,
    /** Without hashing only paths no root manifest entry backs are kept (see firstUnbacked). */
    private readonly hashing: boolean,
  ) {}

  /** What the inventory `inv` (in `where`) expects of `p`: its manifest's digest, then its fixity blocks'. */
  private expectationsIn(inv: CheckedInventory, where: string, p: string): Expectation[] {
    const out: Expectation[] = [];
    const digest = inv.digestAlgorithm ? inv.manifest.get(p) : undefined;
    if (digest !== undefined) out.push({ algorithm: inv.digestAlgorithm!, digest: digest.toLowerCase(), block: 'manifest', where });
    for (const [alg, entriesOf] of inv.fixity) {
      const d = entriesOf.get(p);
      if (d !== undefined) out.push({ algorithm: alg, digest: d, block: 'fixity', where });
    }
    return out;
  }

  /** Whether any inventory expects something of the file `p`. */
  has(p: string): boolean {
    const { root } = this;
    if (root.digestAlgorithm && root.manifest.has(p)) return true;
    for (const entriesOf of root.fixity.values()) if (entriesOf.has(p)) return true;
    return this.earlier.some((e) => e.own.has(p) || e.echo?.has(p));
  }

  /** What every inventory expects of the file `p`, in the order described above. */
  get(p: string): Expectation[] | undefined {
    const rootList = this.expectationsIn(this.root, this.rootWhere, p);
    if (this.earlier.length === 0) return rootList.length > 0 ? rootList : undefined;
    const out = [...rootList];
    for (const e of this.earlier) {
      if (e.echo?.has(p)) for (const x of rootList) out.push({ ...x, where: e.where });
      else out.push(...(e.own.get(p) ?? []));
    }
    return out.length > 0 ? out : undefined;
  }

  /** Every manifest and fixity entry of an inventory other than the root's. */
  addInventory(inv: CheckedInventory, where: string): void {
    const own = new Map<string, Expectation[]>();
    const entry: EarlierInventory = { where, own };
    this.earlier.push(entry);
    const rootManifest = this.root.manifest;
    if (!this.hashing) {
      // Only the first expectation of a path that no root manifest entry backs is looked at.
      const add = (p: string, e: Expectation) => {
        if (!rootManifest.has(p) && !own.has(p) && !this.earlier.some((x) => x !== entry && x.own.has(p))) own.set(p, [e]);
      };
      if (inv.digestAlgorithm)
        for (const [p, d] of inv.manifest) add(p, { algorithm: inv.digestAlgorithm, digest: d.toLowerCase(), block: 'manifest', where });
      for (const [alg, entriesOf] of inv.fixity)
        for (const [p, d] of entriesOf) add(p, { algorithm: alg, digest: d, block: 'fixity', where });
      return;
    }
    const echo = new RootPathSet(rootManifest);
    entry.echo = echo;
    const consider = (p: string) => {
      const list = this.expectationsIn(inv, where, p);
      if (rootManifest.has(p) && sameExpectations(list, this.expectationsIn(this.root, this.rootWhere, p))) echo.add(p);
      else own.set(p, list);
    };
    // Paths in the order their entries were once added one by one: the manifest's, then each fixity
    // block's. A fixity path is always a manifest path (inventory.ts keeps no other), so with a
    // manifest the fixity blocks name no path not seen already.
    if (inv.digestAlgorithm) for (const p of inv.manifest.keys()) consider(p);
    else for (const entriesOf of inv.fixity.values()) for (const p of entriesOf.keys()) if (!own.has(p) && !echo.has(p)) consider(p);
  }

  /**
   * Paths an earlier inventory names but neither the walks found nor the root manifest lists,
   * each with the first expectation of it (in the order the paths were first named).
   */
  *unbacked(exists: (p: string) => boolean): Generator<[string, Expectation]> {
    const rootManifest = this.root.manifest;
    for (let i = 0; i < this.earlier.length; i++) {
      for (const [p, list] of this.earlier[i]!.own) {
        if (exists(p) || rootManifest.has(p) || list.length === 0) continue;
        if (this.earlier.slice(0, i).some((e) => e.own.has(p))) continue;
        yield [p, list[0]!];
      }
    }
  }
}
