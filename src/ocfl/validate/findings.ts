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

/** Collects findings; the same code for the same path and message is kept once. */
export class Findings {
  readonly errors: Finding[] = [];
  readonly warnings: Finding[] = [];
  private readonly seen = new Set<string>();

  add(code: string, message: string, path: string): void {
    const key = `${code}\u0000${path}\u0000${message}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    (severityOf(code) === 'error' ? this.errors : this.warnings).push({ code, message, path });
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
  let text: string;
  try {
    text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  if (text.length > 120) text = text.slice(0, 117) + '...';
  return JSON.stringify(text);
}
