/**
 * The SIARD checks the audit shares with `check`, run through check's own code (siard/check:
 * container.ts, metadata-checks.ts, verdicts.ts), so the two cannot disagree: each failure is
 * added to the audit as an error under the audit's code, with the requirement id check reports it
 * under (`requirement`) and check's sentence after the place in the object.
 */
import { checkZipEntries } from '../siard/check/container.js';
import { checkMetadataSchema } from '../siard/check/metadata-checks.js';
import { CheckReport } from '../siard/check/report.js';
import type { Fail } from '../siard/check/verdicts.js';
import { loadLibxml2 } from '../siard/check/xsd-validator.js';
import type { SiardReader } from '../siard/reader/siard-reader.js';
import { officialMetadataXsd } from '../siard/writer.js';
import type { ObjectAuditContext } from './audit-context.js';
import type { AuditSeverity } from './audit-findings.js';
import type { FindingPlace } from './audit-lobs.js';

/** A failure of check's code as an audit finding (an error unless said): `code`, the requirement id, `prefix` + check's sentence. */
export function auditFail(
  ctx: ObjectAuditContext,
  code: string,
  prefix: string,
  place: FindingPlace,
  severity: AuditSeverity = 'error',
): Fail {
  return (id, message) => ctx.add(severity, code, `${prefix}${message}`, { ...place, requirement: id });
}

/** The failures of `ids` a CheckReport holds, each as an audit error under the code given for its id. */
function addFailures(ctx: ObjectAuditContext, report: CheckReport, codes: Record<string, string>, label: string): void {
  for (const q of report.result().requirements) {
    const code = codes[q.id];
    if (code === undefined || q.status !== 'failed') continue;
    for (const f of q.findings) {
      const place = { path: label, ...(f.table !== undefined ? { table: f.table } : {}) };
      auditFail(ctx, code, `${label}: `, place)(q.id, f.message, {});
    }
  }
}

/** ZIP entries: unsafe names (zip-slip, duplicates: P_4.2-6), compression methods and encryption (G_4.1-2, G_4.1-3). */
export function auditZipEntries(ctx: ObjectAuditContext, siard: SiardReader, label: string): void {
  const report = new CheckReport();
  checkZipEntries(siard.zip.entries, report);
  addFailures(ctx, report, { 'P_4.2-6': 'SIARD_ZIP_UNSAFE_ENTRY', 'G_4.1-2': 'SIARD_ZIP_ENTRY', 'G_4.1-3': 'SIARD_ZIP_ENTRY' }, label);
}

export type MetadataXsdOutcome = { status: 'valid' | 'invalid'; schema: string } | { status: 'skipped'; reason: string };

async function entryBytes(reader: SiardReader, name: string): Promise<Buffer | undefined> {
  if (!reader.zip.entry(name)) return undefined;
  const chunks: Buffer[] = [];
  for await (const c of (await reader.zip.openStream(name)) as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

/**
 * metadata.xml against its XML schema (M_5.0-1, check's validation and sentences). SIARD 2.2
 * archives against the official 2.2 metadata.xsd we ship (an archive cannot vouch for itself);
 * 2.1 and 1.0 archives against the metadata.xsd they carry in `header/`, since the 2.2 schema's
 * version enumeration does not admit them.
 */
export async function auditMetadataXsd(ctx: ObjectAuditContext, siard: SiardReader, label: string): Promise<MetadataXsdOutcome> {
  await loadLibxml2();
  const version = siard.metadata.siardVersion;
  const own = version === '2.2' ? undefined : await entryBytes(siard, `${siard.root}header/metadata.xsd`);
  if (version !== '2.2' && !own)
    return { status: 'skipped', reason: `SIARD ${version || '(unknown version)'} archive without header/metadata.xsd` };
  const xml = (await entryBytes(siard, `${siard.root}header/metadata.xml`))!;
  const schema = own ? "the archive's own header/metadata.xsd" : 'the official SIARD 2.2 metadata.xsd';
  const report = new CheckReport();
  checkMetadataSchema(xml, own ?? officialMetadataXsd(), report, schema);
  addFailures(ctx, report, { 'M_5.0-1': 'SIARD_METADATA_XSD' }, label);
  return { status: report.failed('M_5.0-1') ? 'invalid' : 'valid', schema };
}
