/**
 * Room each segment keeps for its header/metadata.xml, which is written after the last row (it
 * holds row counts and LOB folders) while the segment's table data is written first. The bound is
 * the deflated size of a metadata.xml built from the catalogue before any row is read, with every
 * value the rows could change at its largest: 16-digit row counts, a lobFolder on every column, the
 * database lobFolder and a messageDigest; plus a quarter and 2 KiB for text a source adds after
 * its rows (a re-segmented package's notes on LOB digest mismatches). Deflate of such near-identical
 * text varies by a few bytes; should the real one still not fit, the writer says so.
 */
import zlib from 'node:zlib';
import type { SourceCatalog, SourceSchema, SourceTable } from '../database-source.js';
import type { LobLayout } from '../lob-placement.js';
import { HEADER_DEFLATE_LEVEL } from '../header-deflate.js';
import { metadataXml } from '../metadata-xml.js';
import type { SiardArchive, SiardColumn, SiardSchema } from '../model.js';
import type { SiardExportOptions } from '../export-options.js';

const LARGEST_ROWS = 9_007_199_254_740_991;

/** What of the export's options goes into metadata.xml, with the lobFolder resolved. */
export type HeaderOptions = Pick<
  SiardExportOptions,
  'name' | 'compressionLevel' | 'dataOwner' | 'dataOriginTimespan' | 'description' | 'archiver' | 'archiverContact' | 'producerApplication'
> & { lobFolder: string };

export function metadataXmlBound(
  catalog: SourceCatalog,
  o: HeaderOptions,
  layout: LobLayout,
  columnsOf: (t: SourceTable, s: SourceSchema) => { columns: SiardColumn[] },
): number {
  const info = catalog.archive ?? {};
  const schemas: SiardSchema[] = catalog.schemas.map((s, si) => ({
    name: s.name,
    folder: `schema${si}`,
    ...(s.description !== undefined ? { description: s.description } : {}),
    ...(s.types && s.types.length > 0 ? { types: s.types } : {}),
    ...(s.routines && s.routines.length > 0 ? { routines: s.routines } : {}),
    views: s.views,
    tables: s.tables.map((t, ti) => {
      const { columns } = columnsOf(t, s);
      columns.forEach((c, ci) => (c.lobFolder = layout.columnLobFolder(si, ti, ci + 1)));
      return { ...t, folder: `table${ti}`, columns, rows: LARGEST_ROWS };
    }),
  }));
  const text = (k: 'description' | 'archiver' | 'archiverContact' | 'dataOwner' | 'dataOriginTimespan') => o[k] ?? info[k];
  const archive: SiardArchive = {
    version: '2.2',
    dbname: o.name,
    dataOwner: text('dataOwner') ?? 'unspecified',
    dataOriginTimespan: text('dataOriginTimespan') ?? 'unspecified',
    producerApplication: o.producerApplication ?? 'siard-ocfl',
    archivalDate: '2000-01-01Z',
    lobFolder: layout.databaseLobFolder(o.lobFolder),
    messageDigests: [{ digestType: 'SHA-256', digest: 'f'.repeat(64) }],
    schemas,
    users: catalog.users ?? [],
    // As the writer adds them: what a received package carries counts in its header too.
    ...(catalog.roles && catalog.roles.length > 0 ? { roles: catalog.roles } : {}),
    ...(catalog.privileges && catalog.privileges.length > 0 ? { privileges: catalog.privileges } : {}),
  };
  for (const k of ['description', 'archiver', 'archiverContact'] as const) {
    const v = text(k);
    if (v !== undefined) archive[k] = v;
  }
  for (const k of ['clientMachine'] as const) if (info[k] !== undefined) archive[k] = info[k];
  if (catalog.databaseProduct) archive.databaseProduct = catalog.databaseProduct;
  if (catalog.connection) archive.connection = catalog.connection;
  if (catalog.databaseUser) archive.databaseUser = catalog.databaseUser;
  const deflated = zlib.deflateRawSync(Buffer.from(metadataXml(archive), 'utf8'), { level: HEADER_DEFLATE_LEVEL }).length;
  return Math.ceil(deflated * 1.25) + 2048;
}
