/** What an audit reports: findings with the object, logical path, and table/row/column where they apply. */
export type AuditSeverity = 'error' | 'warning' | 'info';

export interface AuditFinding {
  severity: AuditSeverity;
  /** OCFL validation codes (E0nn/W0nn) or our SIARD codes (SIARD_*, LOB_*) */
  code: string;
  message: string;
  /** object id */
  object: string;
  /** logical path (or content path for OCFL findings about content files) */
  path?: string;
  /** schema.table */
  table?: string;
  /** 1-based row */
  row?: number;
  /** column name */
  column?: string;
  /** the SIARD 2.2 requirement id, when `check`'s code found it (the same id and sentence `check` reports) */
  requirement?: string;
}

/** Most findings listed per code and object; the rest are counted in one closing finding. */
const MAX_LISTED_PER_CODE = 100;

export class AuditFindings {
  readonly all: AuditFinding[] = [];
  private readonly counts = new Map<string, number>();
  private readonly seen = new Set<string>();
  private readonly totals: Record<AuditSeverity, number> = { error: 0, warning: 0, info: 0 };

  add(f: AuditFinding): void {
    const key = JSON.stringify([f.object, f.code, f.path, f.table, f.row, f.column, f.message]);
    if (this.seen.has(key)) return;
    this.seen.add(key);
    const group = `${f.object}\u0000${f.code}`;
    const n = (this.counts.get(group) ?? 0) + 1;
    this.counts.set(group, n);
    this.totals[f.severity]++;
    if (n <= MAX_LISTED_PER_CODE) this.all.push(f);
  }

  /** Adds a closing "N more" finding for every code that passed the listing limit. */
  finish(): void {
    for (const [group, n] of this.counts) {
      if (n <= MAX_LISTED_PER_CODE) continue;
      const [object, code] = group.split('\u0000') as [string, string];
      const first = this.all.find((f) => f.object === object && f.code === code)!;
      this.all.push({
        severity: first.severity,
        code,
        object,
        message: `${n - MAX_LISTED_PER_CODE} more ${code} findings are not listed (${n} in all).`,
      });
    }
  }

  count(severity: AuditSeverity): number {
    return this.totals[severity];
  }
}
