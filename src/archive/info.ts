/**
 * `info`: what a storage root, or one object in it, is. A root: its OCFL version, storage layout
 * with every parameter (defaults included), extensions, object count and bytes. An object: its
 * OCFL version, versions, files and bytes of the head, digest and fixity algorithms, and the SIARD
 * archives its head holds (whole `.siard` files and segmented sets). Read-only.
 */
import type { InventoryVersionSummary } from '../ocfl/inventory/inventory.js';
import type { OcflStorageRoot } from '../ocfl/root.js';
import { groupSegmentNames, isSiardSegmentName } from '../siard/segments/segment-names.js';
import { isSiardFileName } from '../siard/siard-file-name.js';
import { bytesUnder } from './browse.js';
import { declaredObjectVersion, isObjectDeclaration } from '../ocfl/declaration.js';

export interface RootInfo {
  root: string;
  /** the OCFL version the root declares (0=ocfl_1.x) */
  ocflVersion: string;
  /** the storage layout, or null when the root declares none siard-ocfl reads (objects found by scanning) */
  layout: { extension: string; config: Record<string, unknown> } | null;
  /** folders of the root's extensions/ folder */
  extensions: string[];
  objects: number;
  /** bytes of every file under the root */
  bytes: number;
}

export interface ObjectInfo {
  root: string;
  id: string;
  /** the object root, relative to the storage root */
  path: string;
  /** the OCFL version the object declares (0=ocfl_object_1.x) */
  ocflVersion: string;
  head: string;
  versions: InventoryVersionSummary[];
  /** files in the head version */
  files: number;
  /** bytes of every file of the object (all versions, inventories, sidecars) */
  bytes: number;
  digestAlgorithm: string;
  fixityAlgorithms: string[];
  /** SIARD archives in the head version: `.siard` files and segmented sets (by their whole name) */
  siardArchives: string[];
}

export async function rootInfo(root: OcflStorageRoot): Promise<RootInfo> {
  let objects = 0;
  for await (const _ of root.scanObjects()) objects++;
  const extensions = (await root.storage.list('extensions').catch(() => []))
    .filter((e) => e.isDirectory)
    .map((e) => e.name)
    .sort();
  const layout = root.layout ? { extension: root.layout.extensionName, config: { ...root.layout.config } } : null;
  return { root: root.location, ocflVersion: root.ocflVersion, layout, extensions, objects, bytes: await bytesUnder(root.storage, '') };
}

export async function objectInfo(root: OcflStorageRoot, id: string): Promise<ObjectInfo> {
  const reader = await root.openObject(id);
  const listing = reader.listing(reader.head);
  const names: string[] = [];
  for (let i = 0; i < listing.size; i++) {
    const name = listing.logicalPath(i);
    if (isSiardFileName(name) || isSiardSegmentName(name)) names.push(name);
  }
  const whole = names.filter(isSiardFileName);
  const sets = groupSegmentNames(names).map((set) => set.base);
  const declaration = (await root.storage.list(reader.path)).find((e) => e.isFile && isObjectDeclaration(e.name));
  return {
    root: root.location,
    id: reader.id,
    path: reader.path,
    ocflVersion: declaration ? declaredObjectVersion(declaration.name) : 'unknown',
    head: reader.head,
    versions: reader.versions(),
    files: listing.size,
    bytes: await bytesUnder(root.storage, reader.path),
    digestAlgorithm: reader.digestAlgorithm,
    fixityAlgorithms: reader.fixityAlgorithms(),
    siardArchives: [...new Set([...whole, ...sets])].sort(),
  };
}
