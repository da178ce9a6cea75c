/**
 * `--tables` / `--exclude-tables`: comma-separated patterns with `*` and `?`, each either a table
 * name (any schema) or `schema.table`. A pattern that matches no table is an error naming what was
 * asked and what exists: a typo must not silently export nothing, nor (for an exclusion) export
 * what was meant to be left out.
 */
import { UsageError } from '../errors.js';

interface Pattern {
  text: string;
  schema?: RegExp;
  table: RegExp;
  matched: boolean;
}

function glob(p: string): RegExp {
  return new RegExp(
    '^' +
      p
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*')
        .replace(/\?/g, '.') +
      '$',
  );
}

function parse(list: string | undefined): Pattern[] {
  return (list ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
    .map((text) => {
      // "schema.table": the first dot splits; a table name with a dot is matched by the whole pattern too
      const dot = text.indexOf('.');
      const p: Pattern = { text, table: glob(text), matched: false };
      if (dot > 0 && dot < text.length - 1) {
        return { ...p, schema: glob(text.slice(0, dot)), table: glob(text.slice(dot + 1)) };
      }
      return p;
    });
}

function matches(p: Pattern, schema: string, name: string): boolean {
  if (p.schema) return (p.schema.test(schema) && p.table.test(name)) || glob(p.text).test(name);
  return p.table.test(name);
}

export class TableSelection {
  private readonly include: Pattern[];
  private readonly exclude: Pattern[];
  private readonly seen = new Set<string>();

  constructor(tables?: string, excludeTables?: string) {
    this.include = parse(tables);
    this.exclude = parse(excludeTables);
  }

  get active(): boolean {
    return this.include.length > 0 || this.exclude.length > 0;
  }

  /** True when the table is selected; every table a source has must pass through here. */
  accepts(name: string, schema: string): boolean {
    this.seen.add(`${schema}.${name}`);
    let ok = this.include.length === 0;
    for (const p of this.include) if (matches(p, schema, name)) ok = p.matched = true;
    for (const p of this.exclude) {
      if (matches(p, schema, name)) {
        p.matched = true;
        ok = false;
      }
    }
    return ok;
  }

  /** Throws (exit 2) when a pattern matched no table. Call after the catalogue was read. */
  check(): void {
    const unmatched = [
      ...this.include.map((p) => ['--tables', p] as const),
      ...this.exclude.map((p) => ['--exclude-tables', p] as const),
    ].filter(([, p]) => !p.matched);
    if (unmatched.length === 0) return;
    const asked = unmatched.map(([option, p]) => `${option} "${p.text}"`).join(', ');
    const exist = this.seen.size > 0 ? `the database has ${[...this.seen].join(', ')}` : 'the database has no tables';
    throw new UsageError(`${asked} match${unmatched.length === 1 ? 'es' : ''} no table; ${exist}.`, 'NO_SUCH_TABLE');
  }
}
