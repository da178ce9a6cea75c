/**
 * audit: OCFL validation with fixity, plus, for every SIARD archive in the audited version (default
 * head) of each object, these SIARD checks:
 * - metadata.xml parsed, and checked against the XSD (in process, libxml2 in WebAssembly: xsd-check.ts);
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
 * time to parse its table XML. This file selects the objects; object-audit.ts audits each.
 */
import { SiardOcflError, UsageError } from '../errors.js';
import { digestSync } from '../ocfl/digest.js';
import { openRoot, type OcflStorageRoot } from '../ocfl/root.js';
import { HashPool } from '../ocfl/validate/hash-pool.js';
import { AuditFindings } from './audit-findings.js';
import { auditObject } from './object-audit.js';
import type { AuditOptions } from './audit-options.js';
import type { AuditResult, ObjectAuditSummary } from './audit-summary.js';

export type { AuditFinding, AuditSeverity } from './audit-findings.js';
export type { AuditOptions } from './audit-options.js';
export type { AuditResult, ObjectAuditSummary, SiardAuditSummary } from './audit-summary.js';

/** Audits objects of a storage root; never throws for what it finds, only when it cannot run. */
export async function audit(rootArg: string | OcflStorageRoot, options: AuditOptions = {}): Promise<AuditResult> {
  // openRoot directly, not ingest's rootOf: importing ingest.js would load the database drivers.
  const root = typeof rootArg === 'string' ? await openRoot(rootArg) : rootArg;
  const findings = new AuditFindings();
  const objects: ObjectAuditSummary[] = [];
  const targets = await auditTargets(root, options);
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

/** The objects to audit: those named (each must exist), or every object of the root; then this shard's. */
async function auditTargets(root: OcflStorageRoot, options: AuditOptions): Promise<Array<{ id?: string; objectPath: string }>> {
  const targets: Array<{ id?: string; objectPath: string }> = [];
  if (options.ids && options.ids.length > 0) {
    for (const id of options.ids) {
      const p = await root.findObject(id);
      if (p === undefined) {
        throw new SiardOcflError(`Storage root ${root.location} holds no object "${id}".`, { code: 'NO_OBJECT', exitCode: 2 });
      }
      targets.push({ id, objectPath: p });
    }
  } else {
    for await (const loc of root.scanObjects()) targets.push({ objectPath: loc.path });
  }
  if (!options.shard) return targets;
  const { k, n } = options.shard;
  if (!Number.isInteger(n) || n < 1 || !Number.isInteger(k) || k < 1 || k > n) {
    throw new UsageError(`--shard must be k/n with 1 <= k <= n, not ${k}/${n}.`, 'BAD_SHARD');
  }
  return targets.filter((t) => shardOf(t.objectPath, n) === k);
}

/** Shard (1..n) of an object path: by the first 8 hex digits of its sha256, stable across hosts. */
function shardOf(objectPath: string, n: number): number {
  return (parseInt(digestSync('sha256', objectPath).slice(0, 8), 16) % n) + 1;
}
