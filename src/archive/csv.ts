/**
 * CSV as RFC 4180 writes it: fields separated by commas, records ended by CRLF, a field quoted
 * when it holds a comma, a double quote, CR or LF (quotes doubled inside). SQL NULL and the empty
 * string must stay apart, so NULL is an empty unquoted field and the empty string is `""`, as
 * PostgreSQL's `COPY ... (FORMAT csv)` writes and reads them. (Readers that ignore quoting, such
 * as Python's csv module, see both as an empty string.)
 */

const NEEDS_QUOTES = /[",\r\n]/;

/** One field: null = NULL (nothing), "" = `""`, otherwise quoted only where RFC 4180 needs it. */
function csvField(value: string | null): string {
  if (value === null) return '';
  if (value === '' || NEEDS_QUOTES.test(value)) return `"${value.replaceAll('"', '""')}"`;
  return value;
}

/** One record, CRLF included. */
export function csvRecord(fields: ReadonlyArray<string | null>): string {
  return fields.map(csvField).join(',') + '\r\n';
}
