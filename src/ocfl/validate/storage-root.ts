/**
 * Validation of an OCFL storage root: its declaration, ocfl_layout.json and extension folders,
 * the storage hierarchy (no stray file, no empty folder, no link), every object in it, and that
 * each object lies where the declared layout maps its id.
 */
import { createLayoutByName, isKnownLayout, OCFL_LAYOUT_FILE, type StorageLayout } from '../layout/index.js';
import { checkDeclaration } from './declaration.js';
import { isRegisteredExtension, OWN_ROOT_EXTENSIONS } from './extensions.js';
import { Findings, quote } from './findings.js';
import { displayJoin, listDir, type TreeEntry } from './fs-tree.js';
import { describePath, joinPath, statEach, type ReadStorage } from '../storage/storage.js';
import { FileSystemStorage } from '../storage/fs.js';
import type { SpecVersion } from './inventory.js';
import { checkObject, type ObjectCheck, type ObjectCheckOptions } from './object.js';
import { checkObjectsInWorkers } from './object-workers.js';
import { readJson } from './read.js';
import { forEachConcurrent } from '../concurrent.js';

/** Objects validated at once on an object store: enough to keep its round trips overlapping. */
const OBJECTS_AT_ONCE = 2;

export interface StorageRootCheckOptions extends ObjectCheckOptions {
  /** Called once the hierarchy is walked, with the number of objects found. */
  onObjectsFound?: (count: number) => void;
  /** Called when an object has been validated. */
  onObject?: (relativePath: string) => void;
}

export interface StorageRootCheck {
  findings: Findings;
  objects: number;
  files: number;
  bytes: number;
}

/** A parsed extension config.json: undefined when absent, a problem sentence when unusable. */
export async function readExtensionConfig(
  storage: ReadStorage | string,
  extensionDir = '',
): Promise<{ config?: Record<string, unknown>; problem?: string }> {
  const fs = typeof storage === 'string' ? new FileSystemStorage(storage) : storage;
  const parsed = await readJson(fs, joinPath(extensionDir, 'config.json'), 1024 * 1024);
  if (!parsed.ok) return parsed.missing ? {} : { problem: `its config.json ${parsed.problem}` };
  if (typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value)) {
    return { problem: 'its config.json is not a JSON object' };
  }
  return { config: parsed.value as Record<string, unknown> };
}

/** What every step of checkStorageRoot shares. */
interface RootScan {
  fs: ReadStorage;
  root: string;
  findings: Findings;
  at: (rel: string) => string;
}

/** The folders of extensions/ (E112, W016). */
async function checkRootExtensions(scan: RootScan, entries: TreeEntry[]): Promise<Set<string>> {
  const { fs, root, findings, at } = scan;
  const extensionDirs = new Set<string>();
  if (!entries.some((e) => e.name === 'extensions' && e.kind === 'dir')) return extensionDirs;
  for (const e of (await listDir(fs, joinPath(root, 'extensions'))) ?? []) {
    const rel = `extensions/${e.name}`;
    if (e.kind !== 'dir') findings.add('E112', `${rel} is not an extension folder.`, at(rel));
    else {
      extensionDirs.add(e.name);
      if (!isRegisteredExtension(e.name) && !OWN_ROOT_EXTENSIONS.has(e.name))
        findings.add('W016', `${rel} is not the name of a registered extension.`, at(rel));
    }
  }
  return extensionDirs;
}

/** ocfl_layout.json and the layout it names (E070, E071): the layout when this tool can apply it. */
async function readRootLayout(scan: RootScan, entries: TreeEntry[], extensionDirs: Set<string>): Promise<StorageLayout | undefined> {
  const { fs, root, findings, at } = scan;
  if (!entries.some((e) => e.name === OCFL_LAYOUT_FILE)) return undefined;
  const parsed = await readJson(fs, joinPath(root, OCFL_LAYOUT_FILE), 1024 * 1024);
  const value = parsed.ok ? parsed.value : undefined;
  if (!parsed.ok) {
    findings.add('E070', `${OCFL_LAYOUT_FILE} ${parsed.problem}.`, at(OCFL_LAYOUT_FILE));
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    findings.add('E070', `${OCFL_LAYOUT_FILE} is not a JSON object.`, at(OCFL_LAYOUT_FILE));
    return undefined;
  }
  const { extension, description } = value as { extension?: unknown; description?: unknown };
  if (typeof extension !== 'string' || typeof description !== 'string') {
    findings.add('E070', `${OCFL_LAYOUT_FILE} lacks a string "extension" or "description".`, at(OCFL_LAYOUT_FILE));
  }
  if (typeof extension !== 'string') return undefined;
  if (!isRegisteredExtension(extension) && !extensionDirs.has(extension)) {
    findings.add(
      'E071',
      `${OCFL_LAYOUT_FILE} names the layout ${quote(extension)}, which is neither registered nor described in extensions/.`,
      at(OCFL_LAYOUT_FILE),
    );
    return undefined;
  }
  if (!isKnownLayout(extension)) return undefined;
  const cfg = extensionDirs.has(extension) ? await readExtensionConfig(fs, joinPath(root, 'extensions', extension)) : {};
  if (cfg.problem) {
    findings.add('E071', `The layout extension ${extension} cannot be applied: ${cfg.problem}.`, at(`extensions/${extension}/config.json`));
    return undefined;
  }
  try {
    return await createLayoutByName(extension, cfg.config);
  } catch (err) {
    findings.add(
      'E071',
      `The layout extension ${extension} cannot be applied: ${(err as Error).message}`,
      at(`extensions/${extension}/config.json`),
    );
    return undefined;
  }
}

/** The storage hierarchy, walked without recursion (objects are terminal): the object folders, and E072, E073, E090. */
async function findObjectDirs(scan: RootScan, entries: TreeEntry[]): Promise<string[]> {
  const { fs, root, findings, at } = scan;
  const stack: string[] = [];
  const objectDirs: string[] = [];
  for (const e of entries) {
    if (e.kind === 'dir' && e.name !== 'extensions') stack.push(e.name);
    else if (e.kind === 'link' || e.kind === 'other') findings.add('E090', `${quote(e.name)} is a link or special file.`, at(e.name));
    // Other files at the top of the root are ignored, as validators must (E087).
  }
  stack.reverse();
  while (stack.length > 0) {
    const rel = stack.pop()!;
    const dirEntries = await listDir(fs, joinPath(root, rel));
    if (!dirEntries) {
      findings.add('E072', `The folder ${quote(rel)} cannot be read.`, at(rel));
      continue;
    }
    if (dirEntries.some((e) => e.name.startsWith('0=ocfl_object_'))) {
      objectDirs.push(rel);
      continue;
    }
    if (dirEntries.length === 0) findings.add('E073', `The folder ${quote(rel)} is empty.`, at(rel));
    const children: string[] = [];
    for (const e of dirEntries) {
      const childRel = `${rel}/${e.name}`;
      if (e.kind === 'dir') children.push(childRel);
      else if (e.kind === 'file') findings.add('E072', `The file ${quote(childRel)} is not part of any object.`, at(childRel));
      else findings.add('E090', `${quote(childRel)} is a link or special file.`, at(childRel));
    }
    stack.push(...children.reverse());
  }
  return objectDirs;
}

/** Validates the objects, results in their order. */
async function checkObjects(scan: RootScan, objectDirs: string[], options: StorageRootCheckOptions): Promise<ObjectCheck[]> {
  const { fs, root, at } = scan;
  if (fs instanceof FileSystemStorage && objectDirs.length > 1) {
    // On a folder, whole objects in worker threads (object-workers.ts): their checks then run on every core.
    const dirs = objectDirs.map((rel) => joinPath(root, rel));
    const inventories = await statEach(
      fs,
      dirs.map((dir) => joinPath(dir, 'inventory.json')),
    );
    return checkObjectsInWorkers(
      fs.location,
      dirs,
      objectDirs.map((rel) => at(rel)),
      {
        inventoryBytes: inventories.map((stat) => stat?.size ?? 0),
        fixity: options.fixity !== false,
        onPlan: options.onPlan,
        onHashed: options.onHashed,
        onObject: (i) => options.onObject?.(objectDirs[i]!),
      },
    );
  }
  // Elsewhere (an object store) a few at once on this thread, so one object's listing and reads overlap another's.
  const checks = new Array<ObjectCheck>(objectDirs.length);
  await forEachConcurrent(objectDirs, OBJECTS_AT_ONCE, async (rel, i) => {
    checks[i] = await checkObject(fs, joinPath(root, rel), { ...options, display: at(rel) });
    options.onObject?.(rel);
  });
  return checks;
}

/** One object among the others: a version later than the root's (E081), an id used twice (E037), off its layout path (E083). */
function checkObjectPlacement(
  scan: RootScan,
  rel: string,
  check: ObjectCheck,
  ids: Map<string, string>,
  rootSpec: SpecVersion | undefined,
  layout: StorageLayout | undefined,
): void {
  const { findings, at } = scan;
  if (rootSpec && check.specVersion && check.specVersion > rootSpec) {
    findings.add('E081', `The object declares OCFL ${check.specVersion}, later than the storage root's OCFL ${rootSpec}.`, at(rel));
  }
  if (check.id === undefined) return;
  const other = ids.get(check.id);
  if (other !== undefined) findings.add('E037', `The object id ${quote(check.id)} is also used by the object at ${quote(other)}.`, at(rel));
  else ids.set(check.id, rel);
  if (!layout) return;
  let expected: string | undefined;
  try {
    expected = layout.objectPath(check.id);
  } catch (err) {
    findings.add('E083', `The layout ${layout.extensionName} cannot map the id ${quote(check.id)}: ${(err as Error).message}`, at(rel));
  }
  if (expected !== undefined && expected !== rel) {
    findings.add(
      'E083',
      `The object ${quote(check.id)} is at ${quote(rel)}, but the layout ${layout.extensionName} puts it at ${quote(expected)}.`,
      at(rel),
    );
  }
}

export async function checkStorageRoot(fs: ReadStorage, root: string, options: StorageRootCheckOptions): Promise<StorageRootCheck> {
  const findings = new Findings();
  const display = options.display ?? describePath(fs, root);
  const scan: RootScan = { fs, root, findings, at: (rel: string) => displayJoin(display, rel) };
  const result: StorageRootCheck = { findings, objects: 0, files: 0, bytes: 0 };
  const entries = (await listDir(fs, root)) ?? [];
  const rootSpec = await checkDeclaration(fs, root, entries, 'storage root', findings, scan.at);
  const extensionDirs = await checkRootExtensions(scan, entries);
  const layout = await readRootLayout(scan, entries, extensionDirs);
  const objectDirs = await findObjectDirs(scan, entries);
  options.onObjectsFound?.(objectDirs.length);
  const checks = await checkObjects(scan, objectDirs, options);
  // Findings in the order of the walk, whichever object finished first.
  const ids = new Map<string, string>(); // object id -> its folder
  objectDirs.forEach((rel, i) => {
    const check = checks[i]!;
    findings.merge(check.findings);
    result.objects++;
    result.files += check.files;
    result.bytes += check.bytes;
    checkObjectPlacement(scan, rel, check, ids, rootSpec, layout);
  });
  return result;
}
