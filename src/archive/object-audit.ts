/**
 * The audit of one object (see audit.ts for what is checked), as steps each passing its result to
 * the next: open (OCFL structure, the version's state: OpenedObject), measure (content sizes),
 * plan (parse each SIARD archive, decide what the one read computes: ReadPlan, audit-plan.ts),
 * read (that read: its results, audit-read.ts), then compare and report (audit-compare.ts).
 */
import { SiardOcflError } from '../errors.js';
import { forEachConcurrent } from '../ocfl/concurrent.js';
import type { OcflStorageRoot } from '../ocfl/root.js';
import type { HashPool } from '../ocfl/validate/hash-pool.js';
import { validateObject } from '../ocfl/validate/index.js';
import { checkMets, compareContent, compareLobs, reportMessageDigests } from './audit-compare.js';
import { AuditContentFiles } from './audit-content-files.js';
import { ObjectAuditContext, OpenedObject } from './audit-context.js';
import type { AuditFindings } from './audit-findings.js';
import type { AuditOptions } from './audit-options.js';
import { ReadPlanner } from './audit-plan.js';
import { readContent } from './audit-read.js';
import type { ObjectAuditSummary } from './audit-summary.js';
import { ExpectedDigests } from './expected-digests.js';

const STAT_PARALLEL = 64;

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
  const obj = await openObject(ctx);
  if (obj) {
    await measureContent(ctx, obj);
    const plan = await new ReadPlanner(ctx, obj).run();
    const results = await readContent(ctx, obj, plan);
    compareContent(ctx, obj);
    compareLobs(ctx, obj, plan, results);
    await checkMets(ctx, obj, plan);
    reportMessageDigests(ctx, plan, results);
  }
  ctx.summary.errors = findings.count('error') - before.e;
  ctx.summary.warnings = findings.count('warning') - before.w;
  return ctx.summary;
}

/**
 * OCFL structure (every version); content digests follow in our own single read. The validator
 * runs before the reader parses the inventory again, so a million-file inventory is never held
 * twice. Undefined when the object cannot be read.
 */
async function openObject(ctx: ObjectAuditContext): Promise<OpenedObject | undefined> {
  const { root, objectPath, options } = ctx;
  const structure = await validateObject({ storage: root.storage, path: objectPath }, { fixity: false });
  let reader;
  try {
    reader = await root.openObjectAt(objectPath);
    ctx.object = ctx.summary.id = reader.id;
  } catch (err) {
    ctx.add('error', 'OBJECT_UNREADABLE', `The object at ${objectPath} cannot be read: ${(err as Error).message}`, { path: objectPath });
    return undefined;
  }
  for (const f of structure.errors) ctx.add('error', f.code, f.message, { path: f.path });
  for (const f of structure.warnings) ctx.add('warning', f.code, f.message, { path: f.path });
  const version = options.version ?? reader.head;
  if (!reader.hasVersion(version)) {
    throw new SiardOcflError(`Object "${ctx.object}" has no version ${version} (head is ${reader.head}).`, {
      code: 'NO_SUCH_VERSION',
      exitCode: 2,
    });
  }
  ctx.summary.version = version;
  const expected = new ExpectedDigests(reader);
  return new OpenedObject(reader, version, reader.state(version), expected, new AuditContentFiles(expected));
}

/** The size of every content file present in storage; the hashing threads boot meanwhile. */
async function measureContent(ctx: ObjectAuditContext, obj: OpenedObject): Promise<void> {
  const { files } = obj;
  for (const p of obj.expected.contentPaths()) files.add(p);
  const storage = ctx.root.storage;
  if (storage.localPath) {
    // Many stats in flight at once: libuv's threads overlap their latency.
    const ids = Int32Array.from({ length: files.length }, (_, i) => i);
    await forEachConcurrent(ids, STAT_PARALLEL, async (id) => {
      const st = await storage.stat(ctx.stored(files.path(id))).catch(() => undefined);
      if (st?.isFile) files.setSize(id, st.size); // a missing file is the validator's E092
    });
  } else {
    // An object store: one listing of the object (a request per 1,000 files), not a HEAD per file.
    for (const f of (await storage.walk(ctx.objectPath)).files) {
      const id = files.find(f.relative);
      if (id >= 0) files.setSize(id, f.size);
    }
  }
  // The threads boot while the SIARD archives are parsed and planned.
  ctx.pool.prepare(files.present.bytes, files.present.files);
}
