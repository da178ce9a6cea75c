/**
 * CHECK constraints of an SQLite table, read from its CREATE TABLE text in sqlite_master (SQLite
 * has no catalogue of them). Both table constraints (`CONSTRAINT name CHECK (...)`, `CHECK (...)`)
 * and column constraints (`x INT CHECK (x > 0)`) are found; SIARD keeps all of them as table
 * check constraints (metadata.xsd: "check column constraints are stored as table constraints").
 * The condition is the text between CHECK's parentheses, exactly as written; an unnamed one is
 * called `ck_<table>_<n>` (n from 1, in the order they appear).
 */
import type { SiardCheckConstraint } from '../../siard/model.js';

interface Token {
  /** a word (keyword or bare identifier), a quoted identifier (its name), '(' or ')' */
  kind: 'word' | 'name' | 'open' | 'close' | 'other';
  text: string;
  start: number;
  end: number;
}

/** SQLite's tokens, as far as finding CHECK (...) needs: strings, quoted names and comments skipped whole. */
function* tokens(sql: string): Generator<Token> {
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i]!;
    const start = i;
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === '-' && sql[i + 1] === '-') {
      const nl = sql.indexOf('\n', i);
      i = nl < 0 ? sql.length : nl + 1;
    } else if (ch === '/' && sql[i + 1] === '*') {
      const close = sql.indexOf('*/', i + 2);
      i = close < 0 ? sql.length : close + 2;
    } else if (ch === "'" || ch === '"' || ch === '`' || ch === '[') {
      const closer = ch === '[' ? ']' : ch;
      let j = i + 1;
      let text = '';
      for (; j < sql.length; j++) {
        if (sql[j] === closer) {
          if (closer !== ']' && sql[j + 1] === closer) {
            text += closer;
            j++;
          } else break;
        } else text += sql[j];
      }
      i = Math.min(sql.length, j + 1);
      yield { kind: ch === "'" ? 'other' : 'name', text, start, end: i };
    } else if (/[A-Za-z_\u0080-\uffff]/.test(ch)) {
      while (i < sql.length && /[A-Za-z0-9_$\u0080-\uffff]/.test(sql[i]!)) i++;
      yield { kind: 'word', text: sql.slice(start, i), start, end: i };
    } else {
      i++;
      yield { kind: ch === '(' ? 'open' : ch === ')' ? 'close' : 'other', text: ch, start, end: i };
    }
  }
}

/** The CHECK constraints declared in `createSql` (the sqlite_master.sql of table `table`). */
export function sqliteCheckConstraints(table: string, createSql: string): SiardCheckConstraint[] {
  const list = [...tokens(createSql)];
  const out: SiardCheckConstraint[] = [];
  const taken = new Set<string>();
  let unnamed = 0;
  for (let k = 0; k < list.length; k++) {
    const tok = list[k]!;
    if (tok.kind !== 'word' || tok.text.toUpperCase() !== 'CHECK' || list[k + 1]?.kind !== 'open') continue;
    let depth = 0;
    let end = k + 1;
    for (; end < list.length; end++) {
      if (list[end]!.kind === 'open') depth++;
      else if (list[end]!.kind === 'close' && --depth === 0) break;
    }
    if (end >= list.length) break; // unbalanced: SQLite would not have accepted it
    const condition = createSql.slice(list[k + 1]!.end, list[end]!.start).trim();
    const before = list[k - 2];
    let name = before?.kind === 'word' && before.text.toUpperCase() === 'CONSTRAINT' ? list[k - 1]!.text : '';
    if (name === '' || taken.has(name)) {
      do name = `ck_${table}_${++unnamed}`;
      while (taken.has(name));
    }
    taken.add(name);
    out.push({ name, condition });
    k = end;
  }
  return out;
}
