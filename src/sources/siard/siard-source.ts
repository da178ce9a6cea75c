/**
 * A received SIARD package (2.1 or 2.2, any producer dialect the reader knows) as a DatabaseSource,
 * so that the ordinary writer re-segments it: its LOBs, inside the `.siard` or in external folders,
 * land in our layout under the usual limits, with new cell digests.
 *
 * Values are handed over in their SIARD lexical form (SourceSiardText), so no value changes on the
 * way; inline LOBs come as strings / bytes and the writer decides anew what goes to a file. Every
 * LOB in a file is streamed once and checked against its received cell (digest and length) as it
 * is copied: a mismatch stops the export naming the cell, or with `acceptDigestMismatch` is kept as
 * read and recorded in the new archive's description. Memory is one row plus one LOB chunk.
 *
 * User-defined types are carried over: `<types>` with their attributes, `<fields>` of UDT and ARRAY
 * columns (without the producer's lobFolders: the LOBs move to our layout), and UDT values u1, u2 ...
 * with nested UDTs, ARRAYs and LOBs (a LOB attribute is checked like any other LOB cell).
 * Routines, users, roles and privileges are carried over as received. What metadata.xml says that
 * the model cannot hold (a privilege option other than ADMIN / GRANT) is named in the catalogue's
 * notExported, so the export and ingest say so.
 * SIARD 1.0 is refused.
 */
import type { Readable } from 'node:stream';
import { SiardOcflError, UsageError } from '../../errors.js';
import { columnShape, isStructured, typeCatalog, type CellShape } from '../../siard/cell-shape.js';
import type { SiardColumn, SiardField } from '../../siard/model.js';
import { decodeSiardHex } from '../../siard/reader/escape.js';
import { plainShape } from '../../siard/table-xsd.js';
import { describeLobCell, lookupLob, openLookedUp, packageLobAccess } from '../../siard/reader/lob-open.js';
import type { LobAccess } from '../../siard/reader/lob-access.js';
import { lobCellsOfRow, SiardReader, type SiardTableRef } from '../../siard/reader/siard-reader.js';
import { localSegmentSet } from '../../siard/segments/segment-set-reader.js';
import { columnTypeFamily } from '../../siard/reader/table-rows.js';
import { isComplexValue, type SiardLobCell, type SiardReadCellValue } from '../../siard/reader/types.js';
import { type LobVerificationWithExtras, verifiedChunks } from '../../siard/reader/verify-lob.js';
import type {
  DatabaseSource,
  SourceArchiveInfo,
  SourceArrayElement,
  SourceCatalog,
  SourceLob,
  SourceValue,
} from '../../siard/database-source.js';
import { provenanceText, receivedPackageOf, type ReceivedPackage } from './provenance.js';

export interface SiardSourceOptions {
  /** keep a LOB whose bytes do not match its received cell (recorded) instead of stopping */
  acceptDigestMismatch?: boolean;
}

/** SIARD versions read as a source; their table data and metadata differ from 2.2 only in ways the writer rewrites. */
const ACCEPTED_VERSIONS = ['2.1', '2.2'];

/** Largest file value of a non-LOB column written back inline (held in memory once). */
const MAX_INLINE_FILE_VALUE = 16 * 1024 * 1024;

/** Recorded mismatches named in the description; the rest are counted. */
const MAX_NAMED_MISMATCHES = 10;

export class SiardSource implements DatabaseSource {
  readonly description: string;
  /** LOB cells accepted although their bytes differ from the received cell (acceptDigestMismatch) */
  readonly mismatches = { count: 0, first: [] as string[] };
  /** LOBs whose received digest was compared (for the summary) */
  verified = 0;
  private received: ReceivedPackage | undefined;
  private readonly access: LobAccess;

  private constructor(
    readonly file: string,
    readonly reader: SiardReader,
    private readonly options: SiardSourceOptions,
    /** cell shape of every column, by "schema index/table index" */
    private readonly shapes: Map<string, CellShape[]>,
  ) {
    this.description = file;
    this.access = packageLobAccess(reader);
  }

  /**
   * Opens the package; refuses SIARD versions other than 2.1 / 2.2, and columns whose type is
   * neither a predefined one nor a type the package declares, in one sentence.
   */
  static async open(file: string, options: SiardSourceOptions = {}): Promise<SiardSource> {
    if (localSegmentSet(file)) {
      const message =
        `${file} is a segmented SIARD file; ` + `re-segmenting one is not supported yet (ingest stores it as received, restore reads it).`;
      throw new UsageError(message, 'SIARD_SEGMENTED');
    }
    const reader = await SiardReader.open(file);
    try {
      const version = reader.metadata.siardVersion;
      if (!ACCEPTED_VERSIONS.includes(version)) {
        throw new UsageError(
          `${file} is a SIARD ${version || '(unknown version)'} archive; only SIARD 2.1 and 2.2 packages can be re-segmented.`,
          'SIARD_VERSION',
        );
      }
      const types = typeCatalog(reader.archive.schemas);
      const shapes = new Map<string, CellShape[]>();
      reader.archive.schemas.forEach((s, si) => {
        s.tables.forEach((t, ti) => {
          const list = t.columns.map((c) => {
            const where = `${file}: table ${s.name}.${t.name}, column ${c.name}`;
            if (c.type !== undefined && columnTypeFamily(c.type) === undefined) {
              throw new UsageError(
                `${where} has the type "${c.type}", which is not a SQL:2008 predefined type; it cannot be re-segmented.`,
                'SIARD_UNSUPPORTED',
              );
            }
            if (c.type !== undefined || c.baseType !== undefined) return plainShape(c);
            try {
              return columnShape(c, s.name, types, where);
            } catch (err) {
              throw new UsageError((err as Error).message.replace(/\.$/, '; it cannot be re-segmented.'), 'SIARD_UNSUPPORTED', err);
            }
          });
          shapes.set(`${si}/${ti}`, list);
        });
      });
      return new SiardSource(file, reader, options, shapes);
    } catch (err) {
      reader.close();
      throw err;
    }
  }

  async catalog(): Promise<SourceCatalog> {
    const a = this.reader.archive;
    this.received ??= await receivedPackageOf(this.file, this.reader.metadata.siardVersion, a.producerApplication);
    const catalog: SourceCatalog = {
      schemas: a.schemas.map((s) => ({
        name: s.name,
        ...(s.description !== undefined ? { description: s.description } : {}),
        ...(s.types && s.types.length > 0 ? { types: s.types } : {}),
        tables: s.tables.map((t) => ({
          name: t.name,
          ...(t.description !== undefined ? { description: t.description } : {}),
          columns: t.columns.map(withoutLobFolder),
          ...(t.primaryKey ? { primaryKey: t.primaryKey } : {}),
          foreignKeys: t.foreignKeys,
          candidateKeys: t.candidateKeys,
          ...(t.checkConstraints ? { checkConstraints: t.checkConstraints } : {}),
          ...(t.triggers && t.triggers.length > 0 ? { triggers: t.triggers } : {}),
          rows: t.rows,
        })),
        views: s.views.map((v) => ({ ...v, columns: v.columns.map(withoutLobFolder) })),
        ...(s.routines && s.routines.length > 0 ? { routines: s.routines } : {}),
      })),
      users: a.users,
      ...(a.roles && a.roles.length > 0 ? { roles: a.roles } : {}),
      ...(a.privileges && a.privileges.length > 0 ? { privileges: a.privileges } : {}),
      archive: this.archiveInfo(),
    };
    const dropped = this.reader.metadata.dropped;
    if (dropped.length > 0) catalog.notExported = dropped.map((d) => `${d} of the received package`);
    for (const k of ['databaseProduct', 'connection', 'databaseUser'] as const) if (a[k] !== undefined) catalog[k] = a[k];
    return catalog;
  }

  archiveInfo(): SourceArchiveInfo {
    const a = this.reader.archive;
    const info: SourceArchiveInfo = { dataOwner: a.dataOwner, dataOriginTimespan: a.dataOriginTimespan, archivalDate: a.archivalDate };
    for (const k of ['archiver', 'archiverContact', 'clientMachine'] as const) if (a[k] !== undefined) info[k] = a[k];
    const provenance = this.received ? provenanceText(this.received, this.mismatches) : undefined;
    const parts = [a.description, provenance].filter((p): p is string => p !== undefined && p !== '');
    if (parts.length > 0) info.description = parts.join('\n\n');
    return info;
  }

  /** The received package's name, size and SHA-256 (after catalog()). */
  get receivedPackage(): ReceivedPackage | undefined {
    return this.received;
  }

  async *rows(schema: string, table: string): AsyncGenerator<SourceValue[]> {
    const t = this.reader.table(schema, table);
    let count = 0;
    for await (const row of this.reader.rows(t)) {
      count++;
      const lobs = new Map<string, SiardLobCell>();
      for (const cell of lobCellsOfRow(t, row)) lobs.set(cell.cellPath.join('/'), cell);
      const shapes = this.shapes.get(`${t.schemaIndex}/${t.tableIndex}`)!;
      const values: SourceValue[] = [];
      for (let c = 0; c < t.table.columns.length; c++) {
        const shape = shapes[c]!;
        const v = row.cells[c] ?? null;
        values.push(isStructured(shape) ? await this.complex(t, v, shape, [`c${c + 1}`], c, lobs) : await this.value(t, v, c, lobs));
      }
      yield values;
    }
    if (count !== t.table.rows) {
      throw new SiardOcflError(
        `${this.reader.describeTable(t)}: metadata.xml says ${t.table.rows} rows but the table data holds ${count}; ` +
          `re-segmentation stopped.`,
        {
          code: 'ROW_COUNT',
          exitCode: 1,
        },
      );
    }
  }

  private async value(t: SiardTableRef, v: SiardReadCellValue, c: number, lobs: Map<string, SiardLobCell>): Promise<SourceValue> {
    const column = t.table.columns[c]!;
    const family = columnTypeFamily(column.type);
    if (v === null) return v;
    if (v instanceof Uint8Array) return column.cardinality !== undefined && v.length === 0 ? { kind: 'array', elements: [] } : v;
    if (typeof v === 'string') {
      if (column.cardinality !== undefined && v === '') return { kind: 'array', elements: [] };
      // Text stays text where the writer treats it as characters; everything else keeps its lexical form.
      if (family === 'char' || family === 'clob' || family === 'xml') return v;
      return { kind: 'siard-text', text: v };
    }
    if (isComplexValue(v)) {
      if (v.kind !== 'array') throw this.unsupported(t, c, 'a UDT value');
      const n = Math.max(0, ...v.elements.keys());
      const elements: SourceArrayElement[] = [];
      for (let i = 1; i <= n; i++) {
        const e = v.elements.get(i) ?? null;
        if (e !== null && typeof e !== 'string') throw this.unsupported(t, c, `a LOB or nested value in array element ${i}`);
        elements.push(e === null ? null : { kind: 'siard-text', text: e });
      }
      return { kind: 'array', elements };
    }
    const cell = lobs.get(`c${c + 1}`);
    if (!cell) throw new Error(`LOB reference in column ${c + 1} was not found among the row's LOB cells`);
    const lob = await this.lob(cell, family);
    // A DATALINK read from a file goes to a file again (its blobType cell cannot hold the text inline).
    if (family === 'clob' || family === 'xml' || family === 'blob' || family === 'binary' || family === 'datalink') return lob;
    // A producer put a value of a non-LOB type in a file (SiardFromDb: long VARCHARs); SIARD 2.2
    // table XSDs type such cells as plain text, so the value goes back inline, unchanged.
    return this.inlineText(cell, lob, family === 'char');
  }

  /**
   * A value of a UDT column, or of an ARRAY column whose elements are UDTs, or an element inside one:
   * u1.. / a1.. become SourceUdtValue / SourceArrayValue, LOB references checked streams.
   */
  private async complex(
    t: SiardTableRef,
    v: SiardReadCellValue,
    shape: CellShape,
    path: string[],
    c: number,
    lobs: Map<string, SiardLobCell>,
  ): Promise<SourceValue> {
    if (v === null) return null;
    if (shape.kind !== 'scalar') {
      const empty = v === '' || (v instanceof Uint8Array && v.length === 0);
      if (empty) return shape.kind === 'udt' ? { kind: 'udt', elements: [] } : { kind: 'array', elements: [] };
      const wanted = shape.kind === 'udt' ? 'udt' : 'array';
      if (!isComplexValue(v) || v.kind !== wanted) {
        throw this.unsupported(
          t,
          c,
          `at ${path.join('/')} a value without the ${wanted === 'udt' ? 'u1, u2 ...' : 'a1, a2 ...'} elements its type calls for`,
        );
      }
      const n = Math.max(0, ...v.elements.keys());
      if (shape.kind === 'udt') {
        if (n > shape.attributes.length)
          throw this.unsupported(
            t,
            c,
            `at ${path.join('/')} an element u${n}, but ${shape.schema}.${shape.name} has ${shape.attributes.length} attributes`,
          );
        const elements: SourceValue[] = [];
        for (let i = 1; i <= n; i++)
          elements.push(await this.complex(t, v.elements.get(i) ?? null, shape.attributes[i - 1]!.shape, [...path, `u${i}`], c, lobs));
        return { kind: 'udt', elements };
      }
      const elements: SourceArrayElement[] = [];
      for (let i = 1; i <= n; i++) {
        const e = await this.complex(t, v.elements.get(i) ?? null, shape.element, [...path, `a${i}`], c, lobs);
        if (typeof e === 'object' && e !== null && !(e instanceof Uint8Array) && (e.kind === 'lob' || e.kind === 'array')) {
          throw this.unsupported(t, c, `at ${[...path, `a${i}`].join('/')} a LOB file or a nested ARRAY as an array element`);
        }
        elements.push(e as SourceArrayElement);
      }
      return { kind: 'array', elements };
    }
    const family = shape.family;
    if (isComplexValue(v)) throw this.unsupported(t, c, `at ${path.join('/')} nested elements where a ${shape.type} value belongs`);
    if (v instanceof Uint8Array) return v;
    if (typeof v === 'string') {
      if (family === 'char' || family === 'clob' || family === 'xml') return v;
      if (family === 'blob' || family === 'binary') {
        // nested inline binary values stay hex text in the reader
        const bytes = decodeSiardHex(v);
        if (!bytes) throw this.unsupported(t, c, `at ${path.join('/')} an inline ${shape.type} value that is not hexadecimal`);
        return bytes;
      }
      return { kind: 'siard-text', text: v };
    }
    const cell = lobs.get(path.join('/'));
    if (!cell) throw new Error(`LOB reference at ${path.join('/')} was not found among the row's LOB cells`);
    const lob = await this.lob(cell, family);
    if (family === 'clob' || family === 'xml' || family === 'blob' || family === 'binary' || family === 'datalink') return lob;
    return this.inlineText(cell, lob, family === 'char');
  }

  private async inlineText(cell: SiardLobCell, lob: SourceLob, plain: boolean): Promise<SourceValue> {
    const where = describeLobCell(this.reader, cell);
    if (lob.byteLength > MAX_INLINE_FILE_VALUE) {
      throw new SiardOcflError(
        `${where}: the value of this non-LOB column lies in a file of ${lob.byteLength} bytes, too large to write inline ` +
          `(${MAX_INLINE_FILE_VALUE} at most).`,
        {
          code: 'SIARD_UNSUPPORTED',
          exitCode: 1,
        },
      );
    }
    const chunks: Buffer[] = [];
    for await (const chunk of lob.open() as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(chunk));
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
    } catch {
      throw new SiardOcflError(
        `${where}: the value of this non-LOB column lies in a file that is not UTF-8 text; it cannot be written inline unchanged.`,
        {
          code: 'SIARD_UNSUPPORTED',
          exitCode: 1,
        },
      );
    }
    return plain ? text : { kind: 'siard-text', text };
  }

  private unsupported(t: SiardTableRef, c: number, what: string): SiardOcflError {
    return new SiardOcflError(
      `${this.reader.describeTable(t)}: column ${t.table.columns[c]!.name} holds ${what}, which re-segmentation does not carry over yet.`,
      {
        code: 'SIARD_UNSUPPORTED',
        exitCode: 1,
      },
    );
  }

  /** A LOB cell as a stream of known size, checked against its received cell as it is read. */
  private async lob(cell: SiardLobCell, family: string | undefined): Promise<SourceLob> {
    const lookup = await lookupLob(this.reader, cell, this.access);
    if (lookup.status !== 'found') {
      openLookedUp(this.reader, cell, lookup, this.access); // throws the sentence for missing / outside / invalid
      throw new Error('unreachable');
    }
    let byteLength = 0;
    for (const part of lookup.found.parts) byteLength += await this.access.size(part);
    const text = family === 'clob' || family === 'xml';
    const self = this;
    return {
      kind: 'lob',
      byteLength,
      encoding: text ? 'text' : 'binary',
      open: () => self.checkedChunks(cell, openLookedUp(self.reader, cell, lookup, self.access)),
    };
  }

  private async *checkedChunks(cell: SiardLobCell, stream: Readable): AsyncGenerator<Uint8Array> {
    let verification: LobVerificationWithExtras | undefined;
    yield* verifiedChunks(stream, cell.ref, { family: cell.family }, (r) => (verification = r));
    if (!verification) return; // always set once the stream was read through
    const result = verification;
    const where = describeLobCell(this.reader, cell);
    let problem: string | undefined;
    if (result.digestOk === false)
      problem = `LOB file "${cell.ref.file}" has ${result.digestType} digest ${result.digest}, but the cell says ${cell.ref.digest}`;
    else if (result.lengthOk === false) {
      problem =
        `LOB file "${cell.ref.file}" has ${result.bytes} ` +
        `bytes${result.codePoints !== undefined ? ` (${result.codePoints} characters)` : ''}, but the cell says length ${cell.ref.length}`;
    }
    if (result.digestOk === true) this.verified++;
    if (problem === undefined) return;
    if (!this.options.acceptDigestMismatch) {
      throw new SiardOcflError(
        `${where}: ${problem}; re-segmentation stopped (--accept-digest-mismatch keeps such LOBs as read and records them).`,
        {
          code: 'LOB_DIGEST',
          exitCode: 1,
        },
      );
    }
    this.mismatches.count++;
    if (this.mismatches.first.length < MAX_NAMED_MISMATCHES) this.mismatches.first.push(`${where.slice(this.file.length + 2)}: ${problem}`);
  }

  async close(): Promise<void> {
    this.access.close?.();
    this.reader.close();
  }
}

/** A received column without the producer's lobFolders (its own and its fields'): the writer sets ours. */
function withoutLobFolder(c: SiardColumn): SiardColumn {
  const { lobFolder: _l, fields, ...rest } = c;
  return fields ? { ...rest, fields: fields.map(fieldWithoutLobFolder) } : rest;
}

function fieldWithoutLobFolder(f: SiardField): SiardField {
  const { lobFolder: _l, fields, ...rest } = f;
  return fields ? { ...rest, fields: fields.map(fieldWithoutLobFolder) } : rest;
}
