/**
 * What a check reports: per requirement id a status and findings with where (ZIP entry or file,
 * table, row, column) and one sentence a person can act on. Every id starts not-applicable; a check
 * that looks at an id marks it applicable (passed unless a failure is added); ids the catalogue
 * says no program can decide are not-checked. At most MAX_LISTED findings are kept per id; the
 * rest are counted in one closing finding.
 */
import { REQUIREMENTS } from './requirements.js';

export type CheckStatus = 'passed' | 'failed' | 'not-applicable' | 'not-checked';

export interface CheckFinding {
  message: string;
  entry?: string;
  table?: string;
  row?: number;
  column?: string;
}

export interface RequirementResult {
  id: string;
  status: CheckStatus;
  source: string;
  findings: CheckFinding[];
}

export interface CheckResult {
  ok: boolean;
  requirements: RequirementResult[];
}

export type Where = Omit<CheckFinding, 'message'>;

const MAX_LISTED = 100;

interface State {
  applies: boolean;
  failed: boolean;
  notChecked?: string;
  findings: CheckFinding[];
  count: number;
}

export class CheckReport {
  private readonly states = new Map<string, State>();

  constructor() {
    for (const q of REQUIREMENTS) {
      this.states.set(q.id, {
        applies: false,
        failed: false,
        findings: [],
        count: 0,
        ...(q.notChecked ? { notChecked: q.notChecked } : {}),
      });
    }
  }

  private state(id: string): State {
    const s = this.states.get(id);
    if (!s) throw new Error(`unknown requirement id ${id}`);
    return s;
  }

  /** The id was looked at: passed unless a failure is added. */
  applies(...ids: string[]): void {
    for (const id of ids) this.state(id).applies = true;
  }

  /** A failure of the id. */
  fail(id: string, message: string, where: Where = {}): void {
    const s = this.state(id);
    s.applies = true;
    s.failed = true;
    this.push(s, message, where);
  }

  /** A finding that does not fail the id (a recommendation not followed, a tolerated form). */
  note(id: string, message: string, where: Where = {}): void {
    const s = this.state(id);
    s.applies = true;
    this.push(s, message, where);
  }

  /** The id could not be decided for this package (says why). */
  cannot(id: string, message: string): void {
    const s = this.state(id);
    s.notChecked ??= message;
  }

  isApplicable(id: string): boolean {
    return this.state(id).applies;
  }

  failed(id: string): boolean {
    return this.state(id).failed;
  }

  private push(s: State, message: string, where: Where): void {
    s.count++;
    if (s.findings.length < MAX_LISTED) s.findings.push({ message, ...clean(where) });
  }

  result(): CheckResult {
    const requirements = REQUIREMENTS.map((q): RequirementResult => {
      const s = this.state(q.id);
      const findings = [...s.findings];
      if (s.count > findings.length)
        findings.push({ message: `${s.count - findings.length} more findings are not listed (${s.count} in all).` });
      let status: CheckStatus;
      if (s.failed) status = 'failed';
      else if (s.notChecked !== undefined && (q.notChecked !== undefined || !s.applies)) {
        status = 'not-checked';
        findings.unshift({ message: s.notChecked });
      } else status = s.applies ? 'passed' : 'not-applicable';
      return { id: q.id, status, source: q.source, findings };
    });
    return { ok: requirements.every((q) => q.status !== 'failed'), requirements };
  }
}

function clean(where: Where): Where {
  const out: Where = {};
  if (where.entry !== undefined) out.entry = where.entry;
  if (where.table !== undefined) out.table = where.table;
  if (where.row !== undefined) out.row = where.row;
  if (where.column !== undefined) out.column = where.column;
  return out;
}
