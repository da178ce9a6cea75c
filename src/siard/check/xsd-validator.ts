/**
 * XML Schema validation in process, through libxml2 compiled to WebAssembly (libxml2-wasm): the
 * same validator whether or not xmllint is installed. Documents are parsed without network access,
 * without external entities and with libxml2's own depth and amplification limits.
 *
 * A table's XML can be far larger than memory, and libxml2-wasm validates documents, not streams.
 * Rows are independent under a SIARD table schema (a sequence of `row` with no identity
 * constraints), so `TableXsdWindows` validates a table in windows of whole rows: the document's
 * prolog and root start tag, the next rows, the root end tag. The last window holds the real end.
 */
import type { ErrorDetail, XmlDocument, XsdValidator } from 'libxml2-wasm';

type Libxml2 = typeof import('libxml2-wasm');
let loaded: Libxml2 | undefined;

/**
 * Loads libxml2-wasm (once). It starts with a top-level await, so it is imported when a check first
 * needs it, never statically: a module graph holding a top-level await would make every importer
 * (the audit, the CLI, test files) load asynchronously.
 */
export async function loadLibxml2(): Promise<Libxml2> {
  loaded ??= await import('libxml2-wasm');
  return loaded;
}

/** The loaded module (loadLibxml2 must have been awaited). */
export function libxml2(): Libxml2 {
  if (!loaded) throw new Error('libxml2-wasm is not loaded: await loadLibxml2() first');
  return loaded;
}

/** no network, no external entities */
export function parseOptions(): number {
  const { ParseOption } = libxml2();
  return ParseOption.XML_PARSE_NONET | ParseOption.XML_PARSE_NO_XXE;
}
/** errors listed per document */
const MAX_ERRORS = 20;

type Detail = Pick<ErrorDetail, 'message'> & { line?: number };

function describe(d: Detail, lineOffset = 0): string {
  const line = d.line !== undefined && d.line > 0 ? `line ${d.line + lineOffset}: ` : '';
  return `${line}${d.message.trim()}`;
}

function detailsOf(err: unknown): Detail[] {
  const details = (err as { details?: ErrorDetail[] }).details;
  return details && details.length > 0 ? details : [{ message: (err as Error).message }];
}

/** A compiled schema. Throws (with libxml2's words) when the schema itself is not well-formed or not valid. */
export class CompiledSchema {
  private constructor(
    private readonly doc: XmlDocument,
    private readonly validator: XsdValidator,
  ) {}

  static compile(xsd: Uint8Array): CompiledSchema {
    const { XmlDocument, XsdValidator } = libxml2();
    const doc = XmlDocument.fromBuffer(xsd, { option: parseOptions() });
    try {
      return new CompiledSchema(doc, XsdValidator.fromDoc(doc));
    } catch (err) {
      doc.dispose();
      throw new Error(
        detailsOf(err)
          .slice(0, 3)
          .map((d) => describe(d))
          .join('; '),
      );
    }
  }

  /** The errors of one document (empty when valid): not well-formed, or not valid against the schema. */
  errors(xml: Uint8Array, lineOffset = 0): string[] {
    const { XmlDocument, XmlValidateError } = libxml2();
    let doc: XmlDocument;
    try {
      doc = XmlDocument.fromBuffer(xml, { option: parseOptions() });
    } catch (err) {
      return detailsOf(err)
        .slice(0, MAX_ERRORS)
        .map((d) => `not well-formed: ${describe(d, lineOffset)}`);
    }
    try {
      this.validator.validate(doc);
      return [];
    } catch (err) {
      if (!(err instanceof XmlValidateError)) return [(err as Error).message];
      return detailsOf(err)
        .slice(0, MAX_ERRORS)
        .map((d) => describe(d, lineOffset));
    } finally {
      doc.dispose();
    }
  }

  dispose(): void {
    this.validator.dispose();
    this.doc.dispose();
  }
}

/** Validates one whole document against one schema: the errors, empty when valid. */
export function validateDocument(xml: Uint8Array, xsd: Uint8Array): string[] {
  let schema: CompiledSchema;
  try {
    schema = CompiledSchema.compile(xsd);
  } catch (err) {
    return [`the schema cannot be used: ${(err as Error).message}`];
  }
  try {
    return schema.errors(xml);
  } finally {
    schema.dispose();
  }
}

const WINDOW = 4 * 1024 * 1024;
/** a root start tag further than this into the file is not looked for */
const MAX_PROLOG = 1024 * 1024;

function countLines(b: Uint8Array, start = 0, end = b.length): number {
  let n = 0;
  for (let i = b.indexOf(10, start); i >= 0 && i < end; i = b.indexOf(10, i + 1)) n++;
  return n;
}

/** The end of the root element's start tag (index after '>'), and its qualified name; undefined if not found. */
function rootStartTag(b: Buffer): { end: number; name: string } | undefined {
  let i = 0;
  for (;;) {
    i = b.indexOf(60, i); // '<'
    if (i < 0 || i + 1 >= b.length) return undefined;
    const next = b[i + 1]!;
    if (next === 63 /* ? */ || next === 33 /* ! */) {
      const close = next === 33 && b.subarray(i, i + 4).toString() === '<!--' ? b.indexOf('-->', i) : b.indexOf(62, i);
      if (close < 0) return undefined;
      i = close + 1;
      continue;
    }
    let quote = 0;
    for (let j = i + 1; j < b.length; j++) {
      const c = b[j]!;
      if (quote) {
        if (c === quote) quote = 0;
      } else if (c === 34 || c === 39) quote = c;
      else if (c === 62) {
        const name = /^<([^\s/>]+)/.exec(b.subarray(i, Math.min(j + 1, i + 300)).toString('utf8'))?.[1];
        return name ? { end: j + 1, name } : undefined;
      }
    }
    return undefined;
  }
}

/**
 * One table's XML fed chunk by chunk; each full window of rows is validated as it fills. `errors`
 * holds what was found (at most MAX_ERRORS); `finish` validates the last window.
 */
export class TableXsdWindows {
  readonly errors: string[] = [];
  private head: Buffer | undefined;
  private tail: Buffer = Buffer.alloc(0);
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private rowEnd = Buffer.from('</row>');
  private closeTag = Buffer.from('</table>');
  private headLines = 0;
  private linesBefore = 0;
  private stopped = false;

  constructor(private readonly schema: CompiledSchema) {}

  push(chunk: Buffer): void {
    if (this.stopped) return;
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.head === undefined) {
      if (this.pendingBytes > MAX_PROLOG || this.pendingBytes >= 64 * 1024) this.takeHead(false);
      return;
    }
    if (this.pendingBytes >= WINDOW) this.flush(false);
  }

  finish(): string[] {
    if (!this.stopped) {
      if (this.head === undefined) this.takeHead(true);
      if (!this.stopped) this.flush(true);
    }
    return this.errors;
  }

  private joined(): Buffer {
    const b = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
    this.pending = [b];
    return b;
  }

  private takeHead(last: boolean): void {
    const b = this.joined();
    const root = rootStartTag(b);
    if (!root) {
      if (last || this.pendingBytes > MAX_PROLOG) {
        // Not a document we can window: the whole (small) input or its start validated as it is.
        this.addErrors(this.schema.errors(b.subarray(0, Math.min(b.length, MAX_PROLOG))), true);
        this.stopped = true;
      }
      return;
    }
    const prefix = root.name.includes(':') ? root.name.slice(0, root.name.indexOf(':') + 1) : '';
    this.rowEnd = Buffer.from(`</${prefix}row>`);
    this.closeTag = Buffer.from(`</${root.name}>`);
    this.head = b.subarray(0, root.end);
    this.headLines = countLines(this.head);
    this.linesBefore = this.headLines;
    this.tail = Buffer.from(this.closeTag);
    this.pending = [b.subarray(root.end)];
    this.pendingBytes = this.pending[0]!.length;
  }

  private flush(last: boolean): void {
    const b = this.joined();
    let cut = b.length;
    if (!last) {
      const at = b.lastIndexOf(this.rowEnd);
      if (at < 0) {
        if (b.length < 16 * WINDOW) return; // one long row: wait for its end
        this.errors.push(`a row longer than ${16 * WINDOW} bytes or no </row> found: the rest of the file was not validated`);
        this.stopped = true;
        return;
      }
      cut = at + this.rowEnd.length;
    }
    const body = b.subarray(0, cut);
    const doc = last ? Buffer.concat([this.head!, body]) : Buffer.concat([this.head!, body, this.tail]);
    this.addErrors(this.schema.errors(doc, this.linesBefore - this.headLines), false);
    this.linesBefore += countLines(body);
    const rest = b.subarray(cut);
    this.pending = rest.length > 0 ? [Buffer.from(rest)] : [];
    this.pendingBytes = rest.length;
  }

  private addErrors(errors: string[], whole: boolean): void {
    for (const e of errors) if (this.errors.length < MAX_ERRORS) this.errors.push(e);
    if (this.errors.length >= MAX_ERRORS && !whole) this.stopped = true;
  }
}
