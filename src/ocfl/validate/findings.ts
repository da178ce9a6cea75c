/** What validation reports: each finding has its code, one sentence and the path it concerns. */
import { severityOf } from './codes.js';

export interface Finding {
  code: string;
  message: string;
  path: string;
}

export interface ValidationResult {
  valid: boolean;
  errors: Finding[];
  warnings: Finding[];
  /** Objects validated. */
  objects: number;
  /** Content files found in the objects, and their bytes. */
  files: number;
  bytes: number;
}

/** Most findings listed for one code at one path; a hostile inventory must not flood the report. */
export const MAX_PER_CODE_AND_PATH = 50;
/** Most findings listed for one code in all (a tree of a million stray files stays a short report). */
export const MAX_PER_CODE = 1000;

/** Collects findings; the same code for the same path and message is kept once. */
export class Findings {
  readonly errors: Finding[] = [];
  readonly warnings: Finding[] = [];
  private readonly seen = new Set<string>();
  private readonly perCodeAndPath = new Map<string, number>();
  private readonly perCode = new Map<string, number>();

  add(code: string, message: string, path: string): void {
    const key = `${code}\u0000${path}\u0000${message}`;
    if (this.seen.has(key)) return;
    const group = `${code}\u0000${path}`;
    const count = (this.perCodeAndPath.get(group) ?? 0) + 1;
    this.perCodeAndPath.set(group, count);
    if (count > MAX_PER_CODE_AND_PATH + 1) return;
    const total = (this.perCode.get(code) ?? 0) + 1;
    this.perCode.set(code, total);
    if (total > MAX_PER_CODE + 1) return;
    this.seen.add(key);
    const finding =
      total === MAX_PER_CODE + 1
        ? { code, message: `More ${code} findings are not listed.`, path }
        : count === MAX_PER_CODE_AND_PATH + 1
          ? { code, message: `More ${code} findings for this path are not listed.`, path }
          : { code, message, path };
    (severityOf(code) === 'error' ? this.errors : this.warnings).push(finding);
  }

  merge(other: Findings): void {
    for (const f of [...other.errors, ...other.warnings]) this.add(f.code, f.message, f.path);
  }

  get valid(): boolean {
    return this.errors.length === 0;
  }

  codes(): Set<string> {
    return new Set([...this.errors, ...this.warnings].map((f) => f.code));
  }
}

/** Quotes a value from the input for a message, shortened so a hostile value cannot flood the report. */
export function quote(value: unknown): string {
  // Only scalars are shown; a nested value could be absurdly deep or large.
  let text: string;
  if (typeof value === 'string') text = value;
  else if (Array.isArray(value)) return 'a JSON array';
  else if (value === null) return 'null';
  else if (typeof value === 'object') return 'a JSON object';
  else text = String(value);
  if (text.length > 120) text = text.slice(0, 117) + '...';
  return JSON.stringify(text);
}
