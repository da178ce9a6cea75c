/**
 * InnoDB refuses a table whose row could hold more than 8,126 bytes in the page ("Row size too
 * large (> 8126)", innodb_strict_mode): a column of at most 255 bytes (a VARCHAR(63) of utf8mb4,
 * four bytes a character) is always kept in the row, a longer one or a TEXT can go to pages of its
 * own and leaves a 20-byte pointer. The count here is the most a row can hold with the record's
 * own bytes and a tenth to spare. So a table of many short VARCHARs (an Access table of 255
 * Text (50) columns: 51,000 bytes) cannot be created as it is. `fitRowSize` turns its short
 * character columns into `text`, the longest first, until the row fits; the values are the same
 * text, only the length limit is gone, and the caller warns of it.
 */

/** InnoDB's limit for a row in a 16 KiB page (half a page, less its headers). */
export const INNODB_ROW_LIMIT = 8126;
/** what a column stored off the page leaves in the row: its 20-byte pointer and its length */
const POINTER = 22;
/** the record's header (5 bytes), transaction id and roll pointer (13), a row id where no key is yet (6) */
const RECORD_BYTES = 24;
/** kept below the limit: InnoDB's own count differs from this one in details */
const MARGIN = 0.9;
/** utf8mb4: the most bytes a character takes */
const CHAR_BYTES = 4;

const FIXED: Array<[RegExp, number]> = [
  [/^tinyint\b/, 1],
  [/^smallint\b/, 2],
  [/^(mediumint|date)\b/, 3],
  [/^(int|float)\b/, 4],
  [/^(bigint|double|datetime|timestamp)\b/, 8],
  [/^time\b/, 6],
];

/** The most bytes a column of MariaDB type `type` keeps in the row. */
export function inRowBytes(type: string): number {
  const t = type.toLowerCase();
  const n = Number(/\((\d+)/.exec(t)?.[1] ?? 1);
  const chars = /^(var)?char\(/.test(t);
  if (chars || /^(var)?binary\(/.test(t)) {
    const bytes = chars ? n * CHAR_BYTES : n;
    return bytes > 255 ? POINTER : bytes + 2;
  }
  if (/^decimal\(/.test(t)) return Math.ceil(n / 9) * 4;
  for (const [re, bytes] of FIXED) if (re.test(t)) return bytes;
  return POINTER; // text, blob and the like
}

/**
 * `types` with the fewest short character columns turned into `text` for the row to fit (never one
 * that `keep` marks); `changed`: their indexes.
 */
export function fitRowSize(types: readonly string[], keep: readonly boolean[] = []): { types: string[]; changed: number[] } {
  const out = [...types];
  let total = RECORD_BYTES + Math.ceil(out.length / 8) + out.reduce((n, t) => n + inRowBytes(t), 0);
  const changed: number[] = [];
  const short = out
    .map((t, i) => ({ i, bytes: inRowBytes(t), chars: /^(var)?char\(/i.test(t) }))
    .filter((c) => c.chars && c.bytes > POINTER && !keep[c.i])
    .sort((a, b) => b.bytes - a.bytes || a.i - b.i);
  for (const c of short) {
    if (total <= INNODB_ROW_LIMIT * MARGIN) break;
    out[c.i] = 'text';
    total += POINTER - c.bytes;
    changed.push(c.i);
  }
  return { types: out, changed: changed.sort((a, b) => a - b) };
}
