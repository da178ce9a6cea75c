/** What an audit reports: per object, per SIARD archive in it, and in all (audit.ts, object-audit.ts). */
import type { AuditFinding } from './audit-findings.js';

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
