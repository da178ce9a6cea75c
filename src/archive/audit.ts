/**
 * audit: OCFL validation with fixity, plus, for every SIARD archive in the audited version (default
 * head) of each object, these SIARD checks:
 * - metadata.xml parsed, and checked against the XSD (xmllint when present, see xsd-check.ts);
 * - every LOB cell resolved through the three lobFolder levels to a logical path of the object
 *   (relative bases against the logical folder of the .siard; absolute bases are outside the
 *   object: reported, and verified at their logical place when the object holds them there, as
 *   after `relocate`);
 * - the file present, `length` right, `digest` equal to the digest just re-verified against the
 *   inventory fixity (an algorithm the inventory lacks is computed in the same read);
 * - split LOBs complete and in order, their whole digest computed while their parts are verified;
 * - row counts equal to `<rows>`; the archive messageDigest; unreferenced files in LOB folders and
 *   inside the .siard as warnings.
 * Every content file is read once for all of that (content-hash.ts); the .siard is read a second
 * time to parse its table XML.
 */
import { Readable } from 'node:stream';
import { SiardOcflError, UsageError } from '../errors.js';
import { digestSync } from '../ocfl/digest.js';
import { forEachConcurrent } from '../ocfl/concurrent.js';
import { ExpectedDigests } from './expected-digests.js';
import type { OcflObjectReader } from '../ocfl/object.js';
import { openRoot, type OcflStorageRoot } from '../ocfl/root.js';
import { HashPool } from '../ocfl/validate/hash-pool.js';
import { hashStored } from '../ocfl/validate/hash-stored.js';
import { digestMismatches } from '../ocfl/validate/digest-mismatch.js';
import { joinPath } from '../ocfl/storage.js';
import { storedFile } from './stored.js';
import { validateObject } from '../ocfl/validate/index.js';
import { describeLobTarget, type LobLocation, type LobPart } from '../siard/lob-location.js';
import { openFoundLob, type LobAccess } from '../siard/reader/lob-open.js';
import { messageDigestEnd } from '../siard/reader/message-digest.js';
import { lobCellsOfRow, SiardReader } from '../siard/reader/siard-reader.js';
import type { SiardLobCell, SiardReadLobReference } from '../siard/reader/types.js';
import { findUnreferencedLobFiles, type PackageLister } from '../siard/reader/unreferenced.js';
import { lobLengthUnit, verifyLob } from '../siard/reader/verify-lob.js';
import { anyZipped, withZippedLobFolders, type ZippedLobAccess } from '../siard/reader/zipped-lob-folders.js';
import { auditMetsIndex } from '../siard/mets/checker.js';
import { METS_FILE_NAME, NODE_HASH_OF_CHECKSUM_TYPE } from '../siard/mets/types.js';
import { AuditFindings, type AuditFinding, type AuditSeverity } from './audit-findings.js';
import { runSequential, type FileDigests, type SequentialJob, type SequentialResult } from './content-hash.js';
import { OCFL_ALGORITHM_OF_DIGEST_TYPE } from './ocfl-sink.js';
import { checkMetadataXsd, checkTableXsd } from './xsd-check.js';
import { groupSegmentNames, type SegmentSetNames } from '../siard/segments/segment-names.js';
import { isSegmentedReader, openSiardSegments, setProblems } from '../siard/segments/segment-set-reader.js';
import { StorageBaseLookup, storageBaseOf } from './storage-base.js';
import { isSiardFileName } from '../siard/siard-file-name.js';

export type { AuditFinding, AuditSeverity } from './audit-findings.js';

export interface AuditOptions {
  /** objects to audit (default: every object of the root) */
  ids?: string[];
  /** version whose SIARD archives are checked (default head); OCFL validation covers all versions */
  version?: string;
  /** skip the XSD check of metadata.xml */
  noXsd?: boolean;
  /** audit only shard k of n (1-based): objects whose path digest falls in it, so n hosts split a root */
  shard?: { k: number; n: number };
  /** progress: the objects to audit, once, before the first */
  onTargets?: (objects: number) => void;
  /** progress: an object's content bytes about to be read (once per object), then bytes read */
  onPlan?: (bytes: number) => void;
  onBytes?: (bytes: number) => void;
  /** progress: after each object */
  onObjectDone?: () => void;
}

export interface SiardAuditSummary {
  /** logical path of the .siard */
  path: string;
  siardVersion: string;
  tables: number;
  rows: number;
  /** LOB cells checked (inside and outside the .siard) */
  lobs: number;
  /** external LOB files verified */
  lobFiles: number;
  xsd: string;
  messageDigest: 'verified' | 'mismatch' | 'not reproduced' | 'absent' | 'not checked';
  /** a segmented SIARD file (`path` is its stem): each segment and its own messageDigest */
  segments?: Array<{ path: string; messageDigest: SiardAuditSummary['messageDigest'] }>;
}

export interface ObjectAuditSummary {
  id: string;
  objectPath: string;
  version: string;
  contentFiles: number;
  contentBytes: number;
  siards: SiardAuditSummary[];
  errors: number;
  warnings: number;
}

export interface AuditResult {
  ok: boolean;
  objects: ObjectAuditSummary[];
  findings: AuditFinding[];
  errors: number;
  warnings: number;
}

/** A LOB cell whose bytes lie in content files: checked once the files are hashed. */
interface LobCheck {
  where: Pick<AuditFinding, 'path' | 'table' | 'row' | 'column'>;
  ref: SiardReadLobReference;
  text: boolean;
  /** logical paths of the parts, in order */
  parts: string[];
  contentPaths: string[];
  /** index into the sequential jobs, when the cell needs more than per-file digests */
  job?: number;
}

interface SiardPending {
  /** where the messageDigest outcome goes: the archive's summary, or one segment's entry in it */
  summary: Pick<SiardAuditSummary, 'messageDigest'>;
  logicalPath: string;
  contentPath: string;
  job: number;
  messageDigests: Array<{ digestType: string; digest: string }>;
  /** written by siard-ocfl: its messageDigest range is known exactly */
  ours: boolean;
}

/** Plain files handed to the hashing threads at once (see step 3). */
const HASH_BATCH = 20000;
const STAT_PARALLEL = 64;

/** Audits objects of a storage root; never throws for what it finds, only when it cannot run. */
export async function audit(rootArg: string | OcflStorageRoot, options: AuditOptions = {}): Promise<AuditResult> {
  // openRoot directly, not ingest's rootOf: importing ingest.js would load the database drivers.
  const root = typeof rootArg === 'string' ? await openRoot(rootArg) : rootArg;
  const findings = new AuditFindings();
  const objects: ObjectAuditSummary[] = [];
  const targets: Array<{ id?: string; objectPath: string }> = [];
  if (options.ids && options.ids.length > 0) {
    for (const id of options.ids) {
      const p = await root.findObject(id);
      if (p === undefined) throw new SiardOcflError(`Storage root ${root.location} holds no object "${id}".`, { code: 'NO_OBJECT', exitCode: 2 });
      targets.push({ id, objectPath: p });
    }
  } else {
    for await (const loc of root.scanObjects()) targets.push({ objectPath: loc.path });
  }
  if (options.shard) {
    const { k, n } = options.shard;
    if (!Number.isInteger(n) || n < 1 || !Number.isInteger(k) || k < 1 || k > n) throw new UsageError(`--shard must be k/n with 1 <= k <= n, not ${k}/${n}.`, 'BAD_SHARD');
    const mine = targets.filter((t) => shardOf(t.objectPath, n) === k);
    targets.length = 0;
    targets.push(...mine);
  }
  // One pool of hashing threads for all objects: started once, not per object.
  const pool = new HashPool();
  options.onTargets?.(targets.length);
  try {
    for (const t of targets) {
      objects.push(await auditObject(root, t.objectPath, t.id, options, findings, pool));
      options.onObjectDone?.();
    }
  } finally {
    await pool.close();
  }
  findings.finish();
  const errors = findings.count('error');
  const warnings = findings.count('warning');
  return { ok: errors === 0, objects, findings: findings.all, errors, warnings };
}

async function auditObject(
  root: OcflStorageRoot,
  objectPath: string,
  expectedId: string | undefined,
  options: AuditOptions,
  findings: AuditFindings,
  pool: HashPool,
): Promise<ObjectAuditSummary> {
  let object = expectedId ?? objectPath;
  const summary: ObjectAuditSummary = { id: object, objectPath, version: '', contentFiles: 0, contentBytes: 0, siards: [], errors: 0, warnings: 0 };
  const before = { e: findings.count('error'), w: findings.count('warning') };
  const add = (severity: AuditSeverity, code: string, message: string, where: Partial<AuditFinding> = {}) => findings.add({ severity, code, message, object, ...where });
  const done = () => {
    summary.errors = findings.count('error') - before.e;
    summary.warnings = findings.count('warning') - before.w;
    return summary;
  };

  // 1. OCFL structure (every version); content digests follow in our own single read below. The
  // validator runs before the reader parses the inventory again, so a million-file inventory is
  // never held twice.
  const structure = await validateObject({ storage: root.storage, path: objectPath }, { fixity: false });
  let reader: OcflObjectReader;
  try {
    reader = await root.openObjectAt(objectPath);
    object = summary.id = reader.id;
  } catch (err) {
    add('error', 'OBJECT_UNREADABLE', `The object at ${objectPath} cannot be read: ${(err as Error).message}`, { path: objectPath });
    return done();
  }
  for (const f of structure.errors) add('error', f.code, f.message, { path: f.path });
  for (const f of structure.warnings) add('warning', f.code, f.message, { path: f.path });

  const inv = reader.inventory;
  const version = options.version ?? inv.head;
  if (!inv.versions[version]) throw new SiardOcflError(`Object "${object}" has no version ${version} (head is ${inv.head}).`, { code: 'NO_SUCH_VERSION', exitCode: 2 });
  summary.version = version;
  const state = reader.state(version);
  const contentOf = (logicalPath: string) => {
    const digest = state.get(logicalPath);
    return digest === undefined ? undefined : reader.manifestPaths(digest)?.[0];
  };
  const stored = (contentPath: string) => joinPath(objectPath, contentPath);
  const siardAt = (contentPath: string) => storedFile(root.storage, stored(contentPath));

  // Expected digests of every content file: manifest and fixity.
  const expected = new ExpectedDigests(inv);
  const sizes = new Map<string, number>();
  const contentPaths = [...expected.contentPaths()];
  if (root.storage.localPath) {
    // Many stats in flight at once: libuv's threads overlap their latency.
    await forEachConcurrent(contentPaths, STAT_PARALLEL, async (p) => {
      const st = await root.storage.stat(stored(p)).catch(() => undefined);
      if (st?.isFile) sizes.set(p, st.size); // a missing file is the validator's E092
    });
  } else {
    // An object store: one listing of the object (a request per 1,000 files), not a HEAD per file.
    const wanted = new Set(contentPaths);
    for (const f of (await root.storage.walk(objectPath)).files) if (wanted.has(f.relative)) sizes.set(f.relative, f.size);
  }
  // The threads boot while the SIARD archives are parsed and planned below.
  pool.prepare([...sizes.values()].reduce((a, b) => a + b, 0), sizes.size);
  const extraAlgorithms = new Map<string, Set<string>>();
  const needAlgorithm = (contentPath: string, alg: string) => {
    if (expected.has(contentPath, alg)) return;
    (extraAlgorithms.get(contentPath) ?? extraAlgorithms.set(contentPath, new Set()).get(contentPath)!).add(alg);
  };
  const algorithmsOf = (contentPath: string) => [...new Set([...expected.of(contentPath).map((e) => e.algorithm), ...(extraAlgorithms.get(contentPath) ?? [])])];

  const jobs: SequentialJob[] = [];
  const jobFiles: string[][] = []; // content paths of each job
  const lobChecks: LobCheck[] = [];
  const siards: SiardPending[] = [];

  // 2. Each SIARD archive of the version: parse, resolve, plan.
  for (const logicalPath of state.keys()) {
    if (!isSiardFileName(logicalPath)) continue;
    const contentPath = contentOf(logicalPath);
    if (!contentPath || !sizes.has(contentPath)) continue; // reported by the validator
    await planSiard(logicalPath, contentPath);
  }

  // Segmented SIARD files (`x.siard.1` ... `.z`): read as one archive, each segment's digest checked.
  for (const set of groupSegmentNames(state.keys())) await planSegmentSet(set);

  async function planSegmentSet(set: SegmentSetNames): Promise<void> {
    const s: SiardAuditSummary = { path: set.base, siardVersion: '', tables: 0, rows: 0, lobs: 0, lobFiles: 0, xsd: 'not checked', messageDigest: 'not checked' };
    s.segments = [];
    summary.siards.push(s);
    const present = { ...set, members: set.members.filter((m) => contentOf(m.name) !== undefined && sizes.has(contentOf(m.name)!)) };
    let siard: SiardReader;
    try {
      siard = await openSiardSegments(present, (name) => siardAt(contentOf(name)!), { tolerateProblems: true, label: set.base });
    } catch (err) {
      const why = (err as Error).message;
      add('error', 'SIARD_UNREADABLE', `${set.base} (a segmented SIARD file) cannot be read: ${why}`, { path: set.base });
      return;
    }
    try {
      s.siardVersion = siard.metadata.siardVersion;
      for (const p of setProblems(siard)) add('error', p.code, p.message.endsWith('.') ? p.message : `${p.message}.`, { path: set.base });
      for (const entry of siard.zip.unsafeEntries) {
        add('error', 'SIARD_ZIP_UNSAFE_ENTRY', `${set.base} holds ZIP entry ${JSON.stringify(entry.name)}: ${entry.unsafeReason}.`, { path: set.base });
      }
      for (const w of siard.warnings) add('warning', 'SIARD_IRREGULAR', w, { path: set.base });
      if (!options.noXsd) await checkXsds(siard, s, set.base);
      await planCells(siard, s, set.base);
    } catch (err) {
      add('error', 'SIARD_UNREADABLE', `${set.base}: ${(err as Error).message}`, { path: set.base });
    } finally {
      siard.close();
    }
    // Each segment: its own messageDigest over its own bytes before header/, read with its fixity.
    for (const m of present.members) {
      const entry = { path: m.name, messageDigest: 'not checked' as SiardAuditSummary['messageDigest'] };
      s.segments!.push(entry);
      const cp = contentOf(m.name)!;
      try {
        const one = await SiardReader.open(await siardAt(cp), { siardPath: m.name });
        try {
          planDigest(one, m.name, cp, entry);
        } finally {
          one.close();
        }
      } catch (err) {
        add('error', 'SIARD_UNREADABLE', `${m.name} cannot be read as a SIARD archive: ${(err as Error).message}`, { path: m.name });
      }
    }
  }

  /** metadata.xml against the XSD; for a segmented file also each split table file, parts joined, against its own XSD. */
  async function checkXsds(siard: SiardReader, s: SiardAuditSummary, label: string): Promise<void> {
    const xsd = await checkMetadataXsd(siard);
    if (xsd.status === 'valid') s.xsd = `valid against ${xsd.schema}`;
    else if (xsd.status === 'invalid') {
      s.xsd = `invalid against ${xsd.schema}`;
      const message = `${label}: header/metadata.xml is not valid against ${xsd.schema}: ${xsd.message}`;
      add('error', 'SIARD_METADATA_XSD', message, { path: label });
    } else {
      s.xsd = `skipped: ${xsd.reason}`;
      add('info', 'SIARD_XSD_SKIPPED', `${label}: XSD check skipped (${xsd.reason}).`, { path: label });
    }
    if (!isSegmentedReader(siard)) return;
    for (const t of siard.tables()) {
      if (siard.zip.partsOf(t.xmlEntry).length === 0) continue;
      const r = await checkTableXsd(siard, t.xmlEntry);
      const table = `${t.schema.name}.${t.table.name}`;
      const where = `${label}: table ${table}`;
      if (r.status === 'invalid') {
        add('error', 'SIARD_TABLE_XSD', `${where}: ${t.xmlEntry}, its parts joined, is not valid against ${r.schema}: ${r.message}`, { path: label, table });
      } else if (r.status === 'skipped') {
        add('info', 'SIARD_XSD_SKIPPED', `${where}: XSD check of the joined parts skipped (${r.reason}).`, { path: label, table });
      }
    }
  }

  /** The .siard's (or one segment's) digests and messageDigest range in one read. */
  function planDigest(siard: SiardReader, logicalPath: string, contentPath: string, target: SiardPending['summary']): void {
    const end = messageDigestEnd(siard);
    const stated = siard.archive.messageDigests;
    const job: SequentialJob = { files: [stored(contentPath)], algorithms: [algorithmsOf(contentPath)] };
    if (end !== undefined && stated.length > 0 && siard.metadata.siardVersion !== '1.0') {
      job.prefix = { end, algorithms: [...new Set(stated.map((m) => OCFL_ALGORITHM_OF_DIGEST_TYPE[m.digestType]!))] };
    } else {
      target.messageDigest = stated.length === 0 ? 'absent' : 'not checked';
      if (stated.length === 0) {
        add('info', 'SIARD_NO_MESSAGE_DIGEST', `${logicalPath} states no archive messageDigest.`, { path: logicalPath });
      }
    }
    jobs.push(job);
    jobFiles.push([contentPath]);
    const ours = siard.metadata.dialect === 'siard-ocfl';
    siards.push({ summary: target, logicalPath, contentPath, job: jobs.length - 1, messageDigests: stated, ours });
  }

  async function planSiard(logicalPath: string, contentPath: string): Promise<void> {
    const s: SiardAuditSummary = { path: logicalPath, siardVersion: '', tables: 0, rows: 0, lobs: 0, lobFiles: 0, xsd: 'not checked', messageDigest: 'not checked' };
    summary.siards.push(s);
    let siard: SiardReader;
    try {
      siard = await SiardReader.open(await siardAt(contentPath), { siardPath: logicalPath });
    } catch (err) {
      add('error', 'SIARD_UNREADABLE', `${logicalPath} cannot be read as a SIARD archive: ${(err as Error).message}`, { path: logicalPath });
      return;
    }
    try {
      s.siardVersion = siard.metadata.siardVersion;
      // No verb extracts entries by name, but an archive holding such an entry is a trap for any
      // tool that unzips it (zip-slip), and duplicate names make tools read different archives.
      for (const entry of siard.zip.unsafeEntries) {
        add('error', 'SIARD_ZIP_UNSAFE_ENTRY', `${logicalPath} holds ZIP entry ${JSON.stringify(entry.name)}: ${entry.unsafeReason}.`, { path: logicalPath });
      }
      for (const w of siard.warnings) add('warning', 'SIARD_IRREGULAR', w.replace(siard.file, logicalPath), { path: logicalPath });
      if (!options.noXsd) await checkXsds(siard, s, logicalPath);
      await planCells(siard, s, logicalPath);
      planDigest(siard, logicalPath, contentPath, s);
    } catch (err) {
      add('error', 'SIARD_UNREADABLE', `${logicalPath}: ${(err as Error).message.replace(siard.file, logicalPath)}`, { path: logicalPath });
    } finally {
      siard.close();
    }
  }

  async function planCells(siard: SiardReader, s: SiardAuditSummary, logicalPath: string): Promise<void> {
    const plain: LobAccess = {
      exists: async (part) => (part.kind === 'internal' ? siard.hasEntry(part.entry) : state.has(part.path)),
      open: async () => {
        throw new Error('not used');
      },
      size: async () => 0,
    };
    // Zipped LOB segment folders (S_8.4-1): their entries are read and checked here, one by one.
    const access = withZippedLobFolders(plain, async (zip) => (contentOf(zip) === undefined ? undefined : siardAt(contentOf(zip)!)));
    try {
      await planCellsWith(siard, s, logicalPath, access);
    } finally {
      access.close();
    }
  }

  async function planCellsWith(siard: SiardReader, s: SiardAuditSummary, logicalPath: string, access: ZippedLobAccess): Promise<void> {
    const referenced: LobPart[] = [];
    // After `relocate` the object keeps the LOB folders where they were: verified there, said once.
    const lobs = new StorageBaseLookup(siard, access, {
      bases: async () => [await storageBaseOf(reader, logicalPath, version, siardAt)],
      label: logicalPath,
      container: 'the object',
      verb: 'verified',
    });
    const warned = new Set<string>();
    let noted = false;
    for (const t of siard.tables()) {
      s.tables++;
      const tableName = `${t.schema.name}.${t.table.name}`;
      let rows = 0;
      for await (const row of siard.rows(t)) {
        rows++;
        for (const cell of lobCellsOfRow(t, row)) {
          s.lobs++;
          const where = { path: logicalPath, table: tableName, row: cell.row, column: t.table.columns[cell.column - 1]?.name ?? cell.cellPath[0]! };
          const lookup = await lobs.lookup(cell);
          const location = lookup.location;
          if (lobs.note !== undefined && !noted) {
            noted = true;
            add('info', 'SIARD_LOBFOLDER_ABSOLUTE', lobs.note, { path: logicalPath });
          }
          for (const w of location.warnings) {
            if (warned.has(w)) continue;
            warned.add(w);
            add('warning', /back-slash/.test(w) ? 'SIARD_LOBFOLDER_BACKSLASH' : 'SIARD_LOB_LOCATION', `${logicalPath}: ${w}`, { path: logicalPath });
          }
          const found = lookup.status === 'found' ? lookup.found : undefined;
          if (!found) {
            reportUnfound(location, cell, where);
            continue;
          }
          referenced.push(...found.parts);
          if (found.parts[0]!.kind === 'internal') {
            await checkInternalLob(siard, found.parts.map((p) => (p as { entry: string }).entry), cell, where);
            continue;
          }
          if (await anyZipped(access, found.parts)) {
            s.lobFiles += found.parts.length;
            await checkZippedLob(access, found.parts, cell, where);
            continue;
          }
          const parts = found.parts.map((p) => (p as { path: string }).path);
          const contentPaths = parts.map((p) => contentOf(p)!);
          const lost = parts.find((_p, i) => !contentPaths[i] || !sizes.has(contentPaths[i]!));
          if (lost !== undefined) {
            // In the version's state, but its content file is gone from storage (the validator says E092 too).
            add('error', 'LOB_MISSING', `${logicalPath}: table ${tableName}, row ${cell.row}, column ${where.column}: LOB file ${lost} is in ${version} but its content file ${contentOf(lost) ?? '(none)'} is missing from storage.`, { ...where, path: lost });
            continue;
          }
          s.lobFiles += parts.length;
          const check: LobCheck = { where, ref: cell.ref, text: cell.family === 'clob' || cell.family === 'xml', parts, contentPaths };
          const alg = cell.ref.digestType ? OCFL_ALGORITHM_OF_DIGEST_TYPE[cell.ref.digestType] : undefined;
          if (cell.ref.digestTypeRaw !== undefined) add('warning', 'LOB_DIGEST_TYPE', `${logicalPath}: digestType "${cell.ref.digestTypeRaw}" is not one SIARD names; the digest was not checked.`, where);
          const bytes = contentPaths.reduce((n, c) => n + sizes.get(c)!, 0);
          const needText = check.text && cell.ref.length !== undefined && cell.ref.length !== bytes;
          if (parts.length > 1 || needText) {
            jobs.push({
              files: contentPaths.map(stored),
              algorithms: contentPaths.map(algorithmsOf),
              ...(parts.length > 1 && alg ? { wholeAlgorithms: [alg] } : {}),
              countText: needText,
            });
            jobFiles.push(contentPaths);
            check.job = jobs.length - 1;
          } else if (alg) needAlgorithm(contentPaths[0]!, alg);
          lobChecks.push(check);
        }
      }
      s.rows += rows;
      if (rows !== t.table.rows) add('error', 'SIARD_ROWS', `${logicalPath}: table ${tableName} has ${rows} rows in ${t.xmlEntry}, but metadata.xml says <rows>${t.table.rows}</rows>.`, { path: logicalPath, table: tableName });
    }
    const unreferenced = await findUnreferencedLobFiles(siard, referenced, stateLister(state));
    // The METS index (--mets) puts a mets.xml at the top of each segment folder: part of the package.
    const isSegmentMets = (p: string) => {
      const parts = p.split('/');
      return parts.at(-1) === METS_FILE_NAME && parts.length >= 2 && /(_lobseg_|^seg_?)\d+$/.test(parts.at(-2)!);
    };
    const mets = unreferenced.external.filter(isSegmentMets);
    if (mets.length > 0) add('info', 'SIARD_METS_INDEX', `${logicalPath}: ${mets.length} segment folders hold a METS index (${METS_FILE_NAME}), checked with the parent METS beside the .siard.`, { path: logicalPath });
    for (const p of unreferenced.external.filter((x) => !isSegmentMets(x))) add('warning', 'LOB_UNREFERENCED', `${p} lies in a LOB folder of ${logicalPath} but no cell references it.`, { path: p });
    for (const e of unreferenced.internal) add('warning', 'LOB_UNREFERENCED', `${logicalPath}: entry ${e} inside the archive is referenced by no cell.`, { path: logicalPath });
  }

  function reportUnfound(location: LobLocation, cell: SiardLobCell, where: Pick<AuditFinding, 'path' | 'table' | 'row' | 'column'>): void {
    const p = location.primary;
    const cellText = `table ${where.table}, row ${where.row}, column ${where.column}`;
    if (p.kind === 'invalid') {
      add('error', 'LOB_INVALID_LOCATION', `${where.path}: ${cellText}: LOB file "${cell.ref.file}" has no usable location: ${p.reason}`, where);
    } else if (p.kind === 'outside') {
      if (p.absolutePath !== undefined) add('warning', 'LOB_OUTSIDE', `${where.path}: ${cellText}: LOB file "${cell.ref.file}" lies outside the object at ${describeLobTarget(p)}; it was not verified.`, where);
      else add('error', 'LOB_ESCAPES', `${where.path}: ${cellText}: LOB file "${cell.ref.file}" resolves to ${describeLobTarget(p)}, above the object's logical root.`, where);
    } else {
      const target = p.kind === 'internal' ? `entry ${p.entry} inside the .siard` : p.path;
      const ext = p.kind === 'external' ? p.path : undefined;
      const first = ext !== undefined ? [`${ext}.0`, `${ext}_part001`].find((x) => state.has(x)) : undefined;
      if (ext !== undefined && first) add('error', 'LOB_SPLIT_INCOMPLETE', `${where.path}: ${cellText}: the split LOB ${ext} is incomplete: ${first} is there but a later part (or the final .z) is missing.`, { ...where, path: ext });
      else add('error', 'LOB_MISSING', `${where.path}: ${cellText}: LOB file ${target} is missing.`, { ...where, path: p.kind === 'external' ? p.path : where.path });
    }
  }

  type FindingPlace = Pick<AuditFinding, 'path' | 'table' | 'row' | 'column'>;

  async function checkInternalLob(siard: SiardReader, entries: string[], cell: SiardLobCell, where: Pick<AuditFinding, 'path' | 'table' | 'row' | 'column'>): Promise<void> {
    try {
      const joined = (async function* () {
        for (const e of entries) for await (const c of (await siard.zip.openStream(siard.root + e)) as AsyncIterable<Buffer>) yield c;
      })();
      const v = await verifyLob(Readable.from(joined), cell.ref, { family: cell.family });
      if (v.lengthOk === false) add('error', 'LOB_LENGTH', `${where.path}: table ${where.table}, row ${where.row}, column ${where.column}: the LOB inside the archive (${entries[0]}) has ${v.bytes} bytes, but the cell says length ${cell.ref.length}.`, where);
      if (v.digestOk === false) add('error', 'LOB_DIGEST', `${where.path}: table ${where.table}, row ${where.row}, column ${where.column}: the LOB inside the archive (${entries[0]}) has ${v.digestType} ${v.digest}, but the cell says ${cell.ref.digest}.`, where);
    } catch (err) {
      add('error', 'SIARD_ENTRY', `${where.path}: table ${where.table}, row ${where.row}, column ${where.column}: ${(err as Error).message}`, where);
    }
  }

  async function checkZippedLob(access: LobAccess, parts: LobPart[], cell: SiardLobCell, where: FindingPlace): Promise<void> {
    const first = (parts[0] as { path: string }).path;
    const cellAt = `${where.path}: table ${where.table}, row ${where.row}, column ${where.column}`;
    try {
      const found = { target: parts[0]!, parts, split: parts.length > 1 ? ('lobseg' as const) : ('whole' as const) };
      const v = await verifyLob(openFoundLob(found, access), cell.ref, { family: cell.family });
      const at = `the LOB ${first} (in its zipped LOB folder)`;
      if (v.lengthOk === false) {
        add('error', 'LOB_LENGTH', `${cellAt}: ${at} has ${v.bytes} bytes, but the cell says length ${cell.ref.length}.`, where);
      }
      if (v.digestOk === false) {
        add('error', 'LOB_DIGEST', `${cellAt}: ${at} has ${v.digestType} ${v.digest}, but the cell says ${cell.ref.digest}.`, where);
      }
    } catch (err) {
      add('error', 'LOB_ZIPPED', `${cellAt}: ${first} cannot be read from its zipped LOB folder: ${(err as Error).message}`, where);
    }
  }

  // 3. One read of every content file.
  const inJobs = new Set(jobFiles.flat());
  const plain = [...sizes.keys()].filter((p) => !inJobs.has(p)).sort();
  const totalBytes = [...sizes.values()].reduce((a, b) => a + b, 0);
  summary.contentFiles = sizes.size;
  summary.contentBytes = totalBytes;
  options.onPlan?.(totalBytes);
  const results = new Map<string, FileDigests>();
  const jobResults: SequentialResult[] = [];
  // The worker pool hashes plain files while this thread reads the special ones.
  const sequential = (async () => {
    for (const [i, job] of jobs.entries()) {
      const r = await runSequential(job, root.storage);
      jobResults[i] = r;
      options.onBytes?.(jobFiles[i]!.reduce((n, p) => n + (sizes.get(p) ?? 0), 0));
    }
  })();
  // In batches: a task holds the file's absolute path and its algorithms, which for a million
  // files is gigabytes if made all at once; a batch's are dropped once it is hashed.
  const hashing = (async () => {
    for (let i = 0; i < plain.length; i += HASH_BATCH) {
      const batch = plain.slice(i, i + HASH_BATCH);
      const batchResults = await hashStored(root.storage, objectPath, batch, batch.map(algorithmsOf), batch.map((p) => sizes.get(p)!), pool, (_n, bytes) => options.onBytes?.(bytes));
      batch.forEach((p, k) => results.set(p, batchResults[k]!));
    }
  })();
  await Promise.all([hashing, sequential]);
  jobs.forEach((_job, i) => jobFiles[i]!.forEach((p, k) => results.set(p, jobResults[i]!.files[k]!)));

  // 4. Content and fixity digests against the inventory.
  const logicalOf = new Map<string, string[]>();
  for (const [lp, d] of state) for (const cp of reader.manifestPaths(d) ?? []) (logicalOf.get(cp) ?? logicalOf.set(cp, []).get(cp)!).push(lp);
  for (const cp of expected.contentPaths()) {
    const r = results.get(cp);
    if (!r) continue;
    const named = logicalOf.get(cp)?.[0];
    const label = named ? `${cp} (logical path ${named} in ${version})` : cp;
    if (r.error !== undefined || !r.digests) {
      add('error', 'E092', `The content file ${label} cannot be read: ${r.error}.`, { path: named ?? cp });
      continue;
    }
    for (const m of digestMismatches(r.digests, expected.of(cp))) {
      const block = m.block === 'manifest' ? 'manifest' : `${m.algorithm} fixity block`;
      add('error', m.code, `The content file ${label} has ${m.algorithm} ${m.actual}, but the ${block} records ${m.digest}.`, { path: named ?? cp });
    }
  }

  // 5. LOB cells against the verified digests and sizes.
  for (const check of lobChecks) {
    const { where, ref } = check;
    const cellText = `${where.path}: table ${where.table}, row ${where.row}, column ${where.column}`;
    const files = check.contentPaths.map((c) => results.get(c));
    if (files.some((f) => !f?.digests)) continue; // unreadable: reported above
    const job = check.job !== undefined ? jobResults[check.job] : undefined;
    const bytes = files.reduce((n, f) => n + f!.size!, 0);
    const fileLabel = check.parts.length > 1 ? `${check.parts[0]} (+${check.parts.length - 1} parts)` : check.parts[0]!;
    if (ref.length !== undefined) {
      const counts = { bytes, codePoints: job?.text?.codePoints, utf16Units: job?.text?.utf16Units };
      if (lobLengthUnit(ref.length, counts, check.text) === undefined) {
        add('error', 'LOB_LENGTH', `${cellText}: LOB file ${fileLabel} has ${bytes} bytes${job?.text ? ` (${job.text.codePoints} characters)` : ''}, but the cell says length ${ref.length}.`, { ...where, path: check.parts[0]! });
      }
    }
    const alg = ref.digestType ? OCFL_ALGORITHM_OF_DIGEST_TYPE[ref.digestType] : undefined;
    if (alg && ref.digest !== undefined) {
      const got = check.parts.length > 1 ? job?.whole?.[alg] : files[0]!.digests![alg];
      if (got !== undefined && got !== ref.digest.toLowerCase()) {
        add('error', 'LOB_DIGEST', `${cellText}: LOB file ${fileLabel} has ${ref.digestType} ${got}, but the cell says ${ref.digest}.`, { ...where, path: check.parts[0]! });
      }
    }
  }

  // 6. METS index (ingest --mets, or received with the package): checked by the METS checker with
  // sizes and digests from the read above (nothing is hashed again).
  const metsChecked = new Set<string>(); // the segments of a segmented file share one parent
  for (const s of siards) {
    const dir = s.logicalPath.includes('/') ? s.logicalPath.slice(0, s.logicalPath.lastIndexOf('/') + 1) : '';
    const parentPath = `${dir}${METS_FILE_NAME}`;
    if (!state.has(parentPath) || metsChecked.has(parentPath)) continue;
    metsChecked.add(parentPath);
    const metsFindings = await auditMetsIndex({
      parentPath,
      open: async (p) => {
        const cp = state.has(p) ? contentOf(p) : undefined;
        return cp && sizes.has(cp) ? root.storage.readFile(stored(cp)) : undefined;
      },
      facts: {
        size: (p) => (state.has(p) ? sizes.get(contentOf(p)!) : undefined),
        digest: (p, type) => (state.has(p) ? results.get(contentOf(p)!)?.digests?.[NODE_HASH_OF_CHECKSUM_TYPE[type]] : undefined),
      },
      presentFiles: state.keys(),
      referencedFiles: lobChecks.flatMap((c) => c.parts),
    });
    for (const f of metsFindings) add(f.severity, f.code, f.message, { path: f.path });
  }

  // 7. Archive messageDigests.
  for (const s of siards) {
    const r = jobResults[s.job]!;
    if (!jobs[s.job]!.prefix) continue;
    if (!r.prefix) {
      s.summary.messageDigest = 'mismatch';
      add('error', 'SIARD_MESSAGE_DIGEST', `${s.logicalPath}: the archive messageDigest range could not be read.`, { path: s.logicalPath });
      continue;
    }
    const bad = s.messageDigests.filter((m) => r.prefix![OCFL_ALGORITHM_OF_DIGEST_TYPE[m.digestType]!] !== m.digest.toLowerCase());
    s.summary.messageDigest = bad.length === 0 ? 'verified' : s.ours ? 'mismatch' : 'not reproduced';
    for (const m of bad) {
      const got = r.prefix[OCFL_ALGORITHM_OF_DIGEST_TYPE[m.digestType]!];
      if (s.ours) add('error', 'SIARD_MESSAGE_DIGEST', `${s.logicalPath}: the archive messageDigest (${m.digestType}) is ${m.digest}, but the content entries hash to ${got}.`, { path: s.logicalPath });
      // Producers differ in the range they digest (SIARD Suite's cannot be reproduced from its
      // samples), so for their archives a mismatch is reported but does not fail the audit.
      else add('warning', 'SIARD_MESSAGE_DIGEST_UNVERIFIED', `${s.logicalPath}: the archive messageDigest (${m.digestType}) ${m.digest} does not match the bytes before header/ (${got}); this producer may digest another range.`, { path: s.logicalPath });
    }
  }
  // A segmented file's messageDigest: verified when every segment's is.
  for (const s of summary.siards) {
    if (!s.segments || s.segments.length === 0) continue;
    const states = s.segments.map((x) => x.messageDigest);
    const worst = (['mismatch', 'not reproduced', 'absent', 'not checked'] as const).find((x) => states.includes(x));
    s.messageDigest = worst ?? 'verified';
  }
  return done();
}

/** Shard (1..n) of an object path: by the first 8 hex digits of its sha256, stable across hosts. */
export function shardOf(objectPath: string, n: number): number {
  return (parseInt(digestSync('sha256', objectPath).slice(0, 8), 16) % n) + 1;
}

/** Folder listing over the logical paths of a version. */
export function stateLister(state: ReadonlyMap<string, string>): PackageLister {
  return {
    async files(folder) {
      const prefix = folder ? `${folder}/` : '';
      return [...state.keys()].filter((p) => p.startsWith(prefix)).map((p) => p.slice(prefix.length));
    },
    async subfolders(folder) {
      const prefix = folder ? `${folder}/` : '';
      const out = new Set<string>();
      for (const p of state.keys()) {
        if (!p.startsWith(prefix)) continue;
        const rest = p.slice(prefix.length);
        const slash = rest.indexOf('/');
        if (slash > 0) out.add(rest.slice(0, slash));
      }
      return [...out];
    },
  };
}
