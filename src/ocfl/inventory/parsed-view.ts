/**
 * An inventory parsed in full (inventory.ts) read through the one model every reader holds
 * (InventoryModel, view.ts): for the inventories the compact InventoryView declines (not of the
 * plain shape: escapes in paths, upper-case digests, a key listed twice, a state digest the
 * manifest lacks). Each lookup is built on first use and kept: a million paths are not re-indexed
 * per question.
 */
import { type Inventory, InventoryError, noSuchVersion, type InventoryVersionSummary, versionNumber, versionSummary } from './inventory.js';
import type { InventoryModel, VersionListing } from './view.js';

export class ParsedView implements InventoryModel {
  private readonly states = new Map<string, Map<string, string>>();
  /** lower-case digest -> content paths; undefined: the manifest's own keys are lower case and answer. */
  private lowerCaseManifest: Map<string, string[]> | undefined;
  private manifestIndexed = false;
  /** algorithm -> content path -> lower-case digest, a Map set entry by entry (the last listing wins). */
  private readonly byContentPath = new Map<string, Map<string, string>>();

  constructor(readonly inventory: Inventory) {}

  get id(): string {
    return this.inventory.id;
  }
  get type(): string {
    return this.inventory.type;
  }
  get digestAlgorithm(): string {
    return this.inventory.digestAlgorithm;
  }
  get head(): string {
    return this.inventory.head;
  }
  get contentDirectory(): string | undefined {
    return this.inventory.contentDirectory;
  }

  versions(): InventoryVersionSummary[] {
    const versions = this.inventory.versions;
    return Object.keys(versions)
      .sort((a, b) => versionNumber(a) - versionNumber(b))
      .map((name) =>
        versionSummary(
          name,
          versions[name]!,
          Object.values(versions[name]!.state).reduce((n, p) => n + p.length, 0),
        ),
      );
  }

  hasVersion(version: string): boolean {
    return Object.hasOwn(this.inventory.versions, version);
  }

  /** logical path -> lower-case digest, in code-unit order of the paths (a path listed twice keeps its last digest). */
  state(version = this.head): ReadonlyMap<string, string> {
    let state = this.states.get(version);
    if (state) return state;
    if (!this.hasVersion(version)) throw noSuchVersion(this.id, version, this.head);
    const entries: Array<[string, string]> = [];
    const listed = this.inventory.versions[version]!.state;
    for (const digest in listed) {
      const lower = digest.toLowerCase();
      for (const p of listed[digest]!) entries.push([p, lower]);
    }
    // Sorted once, then one map (stable: a path listed twice keeps its last digest).
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    state = new Map(entries);
    this.states.set(version, state);
    return state;
  }

  listing(version = this.head): VersionListing {
    const entries = [...this.state(version)];
    return {
      size: entries.length,
      logicalPath: (i) => entries[i]![0],
      digest: (i) => entries[i]![1],
      contentPath: (i) => this.manifestPaths(entries[i]![1])?.[0] ?? this.noManifestEntry(entries[i]![1]),
    };
  }

  private noManifestEntry(digest: string): never {
    throw new InventoryError(`Object "${this.id}" has no manifest entry for digest ${digest}.`);
  }

  /**
   * Content paths of a lower-case digest. Manifests (ours, ocfl-py's, ocfl-java's) write lower-case
   * keys: then the manifest itself answers, and only one with upper-case keys is indexed again.
   */
  manifestPaths(digest: string): string[] | undefined {
    const manifest = this.inventory.manifest;
    if (!this.manifestIndexed) {
      this.manifestIndexed = true;
      if (Object.keys(manifest).some((key) => /[A-F]/.test(key)))
        this.lowerCaseManifest = new Map(Object.entries(manifest).map(([key, paths]) => [key.toLowerCase(), paths]));
    }
    if (this.lowerCaseManifest) return this.lowerCaseManifest.get(digest);
    return Object.hasOwn(manifest, digest) ? manifest[digest] : undefined;
  }

  contentPaths(): IterableIterator<string> {
    return this.digestsByPath(this.digestAlgorithm).keys();
  }

  fixityAlgorithms(): string[] {
    return Object.keys(this.inventory.fixity ?? {});
  }

  contentDigest(algorithm: string, contentPath: string): string | undefined {
    return this.digestsByPath(algorithm).get(contentPath);
  }

  private digestsByPath(algorithm: string): Map<string, string> {
    let map = this.byContentPath.get(algorithm);
    if (!map) {
      const inv = this.inventory;
      const block = algorithm === inv.digestAlgorithm ? inv.manifest : (inv.fixity?.[algorithm] ?? {});
      map = new Map();
      for (const digest in block) {
        const lower = digest.toLowerCase();
        for (const p of block[digest]!) map.set(p, lower);
      }
      this.byContentPath.set(algorithm, map);
    }
    return map;
  }
}
