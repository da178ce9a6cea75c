/**
 * The audit of one object (see audit.ts for what is checked), as steps each passing its result to
 * the next: open (the version's state: OpenedObject), measure (content sizes), then the pool
 * hashes the plain content files (ContentHashing) while this thread checks the OCFL structure and
 * plans (parse each SIARD archive, decide what the one read computes: ReadPlan, audit-plan.ts);
 * read (the planned jobs, the rest of the hashing: audit-read.ts), then compare and report
 * (audit-compare.ts).
 */
import { SiardOcflError } from '../errors.js';
import type { OcflStorageRoot } from '../ocfl/root.js';
import { joinPath } from '../ocfl/storage/storage.js';
import type { HashPool } from '../ocfl/validate/hash-pool.js';
import { validateObject, type ValidationResult } from '../ocfl/validate/index.js';
import { isSiardSegmentName } from '../siard/segments/segment-names.js';
import { isSiardFileName } from '../siard/siard-file-name.js';
import { checkMets, compareContent, compareLobs, reportMessageDigests } from './audit-compare.js';
import { AuditContentFiles } from './audit-content-files.js';
import { ObjectAuditContext, OpenedObject } from './audit-context.js';
import type { AuditFindings } from './audit-findings.js';
import type { AuditOptions } from './audit-options.js';
import { ReadPlanner } from './audit-plan.js';
import { ContentHashing, readContent } from './audit-read.js';
import type { ObjectAuditSummary } from './audit-summary.js';
import { ExpectedDigests } from './expected-digests.js';

/**
 * An inventory up to this size is parsed by the reader first and checked by the validator while
 * the content is hashed; a larger one is checked first, so that its two parsed forms are never
 * held at once (a million-file inventory is about 600 MB of JSON).
 */
const OVERLAPPED_INVENTORY_BYTES = 64 * 1024 * 1024;

export async function auditObject(
  root: OcflStorageRoot,
  objectPath: string,
  expectedId: string | undefined,
  options: AuditOptions,
  findings: AuditFindings,
  pool: HashPool,
): Promise<ObjectAuditSummary> {
  const before = { e: findings.count('error'), w: findings.count('warning') };
  const ctx = new ObjectAuditContext(root, objectPath, expectedId, options, findings, pool);
  const opened = await openObject(ctx);
  if (opened) {
    const { obj } = opened;
    await measureContent(ctx, obj);
    // The pool hashes the plain content from now on, while this thread checks the structure and plans.
    const hashing = new ContentHashing(ctx, obj, siardFiles(obj));
    reportStructure(ctx, opened.structure ?? (await checkStructure(ctx)));
    const plan = await new ReadPlanner(ctx, obj).run();
    const results = await readContent(ctx, obj, plan, hashing);
    compareContent(ctx, obj);
    compareLobs(ctx, obj, plan, results);
    await checkMets(ctx, obj, plan);
    reportMessageDigests(ctx, plan, results);
  }
  ctx.summary.errors = findings.count('error') - before.e;
  ctx.summary.warnings = findings.count('warning') - before.w;
  return ctx.summary;
}

/** OCFL structure (every version); content digests follow in our own single read. */
function checkStructure(ctx: ObjectAuditContext): Promise<ValidationResult> {
  return validateObject({ storage: ctx.root.storage, path: ctx.objectPath }, { fixity: false });
}

function reportStructure(ctx: ObjectAuditContext, structure: ValidationResult): void {
  for (const f of structure.errors) ctx.add('error', f.code, f.message, { path: f.path });
  for (const f of structure.warnings) ctx.add('warning', f.code, f.message, { path: f.path });
}

/**
 * The object opened at the version audited, and its structure's findings when a large inventory
 * had them checked first (OVERLAPPED_INVENTORY_BYTES). Undefined when the object cannot be read
 * (then its structure's findings are not given: the one error says it).
 */
async function openObject(ctx: ObjectAuditContext): Promise<{ obj: OpenedObject; structure?: ValidationResult } | undefined> {
  const { root, objectPath, options } = ctx;
  const inventory = await root.storage.stat(joinPath(objectPath, 'inventory.json')).catch(() => undefined);
  const structure = (inventory?.size ?? 0) > OVERLAPPED_INVENTORY_BYTES ? await checkStructure(ctx) : undefined;
  let reader;
  try {
    reader = await root.openObjectAt(objectPath);
    ctx.object = ctx.summary.id = reader.id;
  } catch (err) {
    ctx.add('error', 'OBJECT_UNREADABLE', `The object at ${objectPath} cannot be read: ${(err as Error).message}`, { path: objectPath });
    return undefined;
  }
  const version = options.version ?? reader.head;
  if (!reader.hasVersion(version)) {
    throw new SiardOcflError(`Object "${ctx.object}" has no version ${version} (head is ${reader.head}).`, {
      code: 'NO_SUCH_VERSION',
      exitCode: 2,
    });
  }
  ctx.summary.version = version;
  const expected = new ExpectedDigests(reader);
  const obj = new OpenedObject(reader, version, reader.state(version), expected, new AuditContentFiles(expected));
  return { obj, ...(structure ? { structure } : {}) };
}

/** The content files of the version's SIARD archives (whole or segments): the plan's jobs read them. */
function siardFiles(obj: OpenedObject): Set<number> {
  const ids = new Set<number>();
  for (const logicalPath of obj.state.keys()) {
    if (!isSiardFileName(logicalPath) && !isSiardSegmentName(logicalPath)) continue;
    const id = obj.presentFile(obj.contentOf(logicalPath));
    if (id >= 0) ids.add(id);
  }
  return ids;
}

/** The size of every content file present in storage, then the progress total; the hashing threads boot meanwhile. */
async function measureContent(ctx: ObjectAuditContext, obj: OpenedObject): Promise<void> {
  const { files } = obj;
  for (const p of obj.expected.contentPaths()) files.add(p);
  const storage = ctx.root.storage;
  if (storage.localPath) {
    const paths = Array.from({ length: files.length }, (_, id) => ctx.stored(files.path(id)));
    // A folder: one lstat after another (statMany); a missing file is the validator's E092. A path
    // the storage refuses (an inventory naming /etc/passwd) fails statMany as a whole: then one by one.
    const each = () => Promise.all(paths.map((p) => storage.stat(p).catch(() => undefined)));
    const stats = storage.statMany ? await storage.statMany(paths).catch(each) : await each();
    stats.forEach((st, id) => {
      if (st?.isFile) files.setSize(id, st.size);
    });
  } else {
    // An object store: one listing of the object (a request per 1,000 files), not a HEAD per file.
    for (const f of (await storage.walk(ctx.objectPath)).files) {
      const id = files.find(f.relative);
      if (id >= 0) files.setSize(id, f.size);
    }
  }
  ctx.pool.prepare(files.present.bytes, files.present.files);
  ctx.summary.contentFiles = files.present.files;
  ctx.summary.contentBytes = files.present.bytes;
  ctx.options.onPlan?.(files.present.bytes);
}
