/**
 * Triggers of an SQLite table for SIARD's `<triggers>`: action time and event read from the head
 * of the CREATE TRIGGER statement, and the whole statement, exactly as stored in sqlite_master, as
 * the triggered action, so a restore into SQLite can run it again as it is.
 */
import type Database from 'better-sqlite3';
import type { SiardTrigger } from '../../siard/model.js';

const NAME = '(?:"(?:[^"]|"")*"|\\[[^\\]]*\\]|`(?:[^`]|``)*`|[^\\s(]+)';
const HEAD = new RegExp(
  `^\\s*CREATE\\s+(?:TEMP(?:ORARY)?\\s+)?TRIGGER\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?${NAME}(?:\\s*\\.\\s*${NAME})?\\s+` +
    `(BEFORE\\s+|AFTER\\s+|INSTEAD\\s+OF\\s+)?(DELETE|INSERT|UPDATE(?:\\s+OF\\s+[\\s\\S]*?)?)\\s+ON\\s`,
  'i',
);

/** SQLite's default action time, when the statement names none, is BEFORE. */
function sqliteTrigger(name: string, sql: string): SiardTrigger {
  const m = HEAD.exec(sql);
  const time = (m?.[1] ?? 'BEFORE').trim().toUpperCase().replace(/\s+/g, ' ');
  return {
    name,
    actionTime: time === 'AFTER' || time === 'INSTEAD OF' ? time : 'BEFORE',
    triggerEvent: (m?.[2] ?? '').trim().replace(/\s+/g, ' '),
    triggeredAction: sql,
    description: 'The SQLite CREATE TRIGGER statement as stored.',
  };
}

/** Triggers on `table`, in creation order. */
export function sqliteTriggers(db: Database.Database, table: string): SiardTrigger[] {
  const rows = db
    .prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? AND sql IS NOT NULL ORDER BY rowid`)
    .all(table) as Array<{ name: string; sql: string }>;
  return rows.map((r) => sqliteTrigger(r.name, r.sql));
}
