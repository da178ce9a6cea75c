/**
 * The last steps of one object's audit, after the one read of its content (audit-read.ts): content
 * and fixity digests against the inventory, LOB cells against what the read found, the METS index,
 * the archive messageDigests. Each takes the results of the steps before it and only adds findings.
 */
import { digestMismatches } from '../ocfl/validate/digest-mismatch.js';
import { lobDigestVerdict, lobFileLabel, lobLengthVerdict, messageDigestVerdict } from '../siard/check/verdicts.js';
import { auditMetsIndex } from '../siard/mets/checker.js';
import { METS_FILE_NAME, NODE_HASH_OF_CHECKSUM_TYPE } from '../siard/mets/types.js';
import { auditFail } from './audit-check.js';
import type { PlannedLobs } from './audit-lobs.js';
import type { ObjectAuditContext, OpenedObject } from './audit-context.js';
import type { ReadPlan } from './audit-plan.js';
import type { SequentialResult } from './content-hash.js';
import { OCFL_ALGORITHM_OF_DIGEST_TYPE } from './ocfl-sink.js';

/** 4. Content and fixity digests against the inventory: the files whose read did not confirm them. */
export function compareContent(ctx: ObjectAuditContext, obj: OpenedObject): void {
  const { files } = obj;
  const kept = files.keptIds();
  if (kept.length === 0) return;
  // Each file named by the first logical path (in state order) whose digest lists it.
  const wanted = new Map(kept.map((id) => [files.path(id), undefined as string | undefined]));
  for (const [lp, d] of obj.state) {
    for (const cp of obj.reader.manifestPaths(d) ?? []) if (wanted.has(cp) && wanted.get(cp) === undefined) wanted.set(cp, lp);
  }
  for (const id of kept) {
    const cp = files.path(id);
    const r = files.keptResult(id)!;
    const named = wanted.get(cp);
    const label = named ? `${cp} (logical path ${named} in ${obj.version})` : cp;
    if (r.error !== undefined || !r.digests) {
      ctx.add('error', 'E092', `The content file ${label} cannot be read: ${r.error}.`, { path: named ?? cp });
      continue;
    }
    for (const m of digestMismatches(r.digests, obj.expected.of(cp))) {
      const block = m.block === 'manifest' ? 'manifest' : `${m.algorithm} fixity block`;
      ctx.add('error', m.code, `The content file ${label} has ${m.algorithm} ${m.actual}, but the ${block} records ${m.digest}.`, {
        path: named ?? cp,
      });
    }
  }
}

/** 5. LOB cells against the verified digests and sizes. */
export function compareLobs(ctx: ObjectAuditContext, obj: OpenedObject, plan: ReadPlan, results: SequentialResult[]): void {
  const { lobs } = plan;
  const { files } = obj;
  for (let i = 0; i < lobs.length; i++) {
    const n = lobs.partCount(i);
    const ids = Array.from({ length: n }, (_, k) => lobs.fileOf(i, k));
    if (ids.some((id) => !files.hasDigests(id))) continue; // unreadable: reported above
    const jobIndex = lobs.job(i);
    const job = jobIndex !== undefined ? results[jobIndex] : undefined;
    const bytes = ids.reduce((sum, id) => sum + files.readSize(id)!, 0);
    const length = lobs.lengthAttribute(i);
    const text = lobs.isText(i);
    // check's judgements and sentences (siard/check/verdicts.ts) on what the one read found
    const place = { ...lobs.where(i), path: lobs.partPathOf(i, 0) };
    const file = lobFileLabel(lobs.partPathOf(i, 0), n);
    const counts = { bytes, codePoints: job?.text?.codePoints, utf16Units: job?.text?.utf16Units };
    lobLengthVerdict(auditFail(ctx, 'LOB_LENGTH', `${cellText(plan.lobs, i)}: `, place), file, length, counts, text, {});
    const digestType = lobs.digestType(i);
    const alg = digestType ? OCFL_ALGORITHM_OF_DIGEST_TYPE[digestType] : undefined;
    // Confirmed against the inventory, which records the cell's digest: nothing to compare.
    if (!alg || (n === 1 && lobs.digestRecorded(i) && files.isConfirmed(ids[0]!))) continue;
    const want = lobs.digest(i, () => obj.expected.digest(files.path(ids[0]!), alg));
    if (want === undefined) continue;
    const got = n > 1 ? job?.whole?.[alg] : files.digest(ids[0]!, alg);
    lobDigestVerdict(auditFail(ctx, 'LOB_DIGEST', `${cellText(plan.lobs, i)}: `, place), file, digestType!, got, want, {});
  }
}

function cellText(lobs: PlannedLobs, i: number): string {
  const where = lobs.where(i);
  return `${where.path}: table ${where.table}, row ${where.row}, column ${where.column}`;
}

/**
 * 6. METS index (ingest --mets, or received with the package): checked by the METS checker with
 * sizes and digests from the one read (nothing is hashed again).
 */
export async function checkMets(ctx: ObjectAuditContext, obj: OpenedObject, plan: ReadPlan): Promise<void> {
  const { state, files } = obj;
  const metsChecked = new Set<string>(); // the segments of a segmented file share one parent
  for (const s of plan.siards) {
    const dir = s.logicalPath.includes('/') ? s.logicalPath.slice(0, s.logicalPath.lastIndexOf('/') + 1) : '';
    const parentPath = `${dir}${METS_FILE_NAME}`;
    if (!state.has(parentPath) || metsChecked.has(parentPath)) continue;
    metsChecked.add(parentPath);
    const metsFindings = await auditMetsIndex({
      parentPath,
      open: async (p) => {
        const cp = state.has(p) ? obj.contentOf(p) : undefined;
        return obj.presentFile(cp) >= 0 ? ctx.root.storage.readFile(ctx.stored(cp!)) : undefined;
      },
      facts: {
        size: (p) => {
          const id = state.has(p) ? obj.presentFile(obj.contentOf(p)) : -1;
          return id >= 0 ? files.size(id) : undefined;
        },
        digest: (p, type) => {
          if (!state.has(p)) return undefined;
          const id = obj.presentFile(obj.contentOf(p));
          return id >= 0 ? files.digest(id, NODE_HASH_OF_CHECKSUM_TYPE[type]) : undefined;
        },
      },
      presentFiles: state.keys(),
      referencedFiles: plan.lobs.partPathsOf(),
    });
    for (const f of metsFindings) ctx.add(f.severity, f.code, f.message, { path: f.path });
  }
}

/** 7. Archive messageDigests; a segmented file's is verified when every segment's is. */
export function reportMessageDigests(ctx: ObjectAuditContext, plan: ReadPlan, results: SequentialResult[]): void {
  for (const s of plan.siards) {
    const r = results[s.job]!;
    if (!plan.jobs[s.job]!.prefix) continue;
    if (!r.prefix) {
      s.summary.messageDigest = 'mismatch';
      ctx.add('error', 'SIARD_MESSAGE_DIGEST', `${s.logicalPath}: the archive messageDigest range could not be read.`, {
        path: s.logicalPath,
      });
      continue;
    }
    const bad = s.messageDigests.filter((m) => r.prefix![OCFL_ALGORITHM_OF_DIGEST_TYPE[m.digestType]!] !== m.digest.toLowerCase());
    s.summary.messageDigest = bad.length === 0 ? 'verified' : s.ours ? 'mismatch' : 'not reproduced';
    // Producers differ in the range they digest (SIARD Suite's cannot be reproduced from its
    // samples), so for their archives a mismatch is reported but does not fail the audit.
    const fail = s.ours
      ? auditFail(ctx, 'SIARD_MESSAGE_DIGEST', `${s.logicalPath}: `, { path: s.logicalPath })
      : auditFail(ctx, 'SIARD_MESSAGE_DIGEST_UNVERIFIED', `${s.logicalPath}: `, { path: s.logicalPath }, 'warning');
    for (const m of bad) messageDigestVerdict(fail, m.digestType, m.digest, r.prefix[OCFL_ALGORITHM_OF_DIGEST_TYPE[m.digestType]!]!);
  }
  for (const s of ctx.summary.siards) {
    if (!s.segments || s.segments.length === 0) continue;
    const states = s.segments.map((x) => x.messageDigest);
    const worst = (['mismatch', 'not reproduced', 'absent', 'not checked'] as const).find((x) => states.includes(x));
    s.messageDigest = worst ?? 'verified';
  }
}
