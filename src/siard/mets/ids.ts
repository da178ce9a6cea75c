/**
 * The identifiers that tie the METS files together (seed 002):
 * - a child's OBJID equals the ID of its `file` in the parent's "child IP" fileGrp and the
 *   xlink:href of the parent's `mptr` for it (`ID_Northwind_lobseg_0_mets` in the seed);
 * - a child's `mptr` xlink:href equals the parent's OBJID (the archive identifier);
 * - a LOB file's ID and OWNERID name its cell: `s<schema>.t<table>.c<column>.r<row>` as the seed's
 *   example writes them (`s0.t2.c4.r1` is schema0/table2/lob4/record0.bin: row 1, column 4; the
 *   seed's comment "table no.row no.column no" does not match its own values).
 */
import type { LobIdentity } from './types.js';
import { ncNameOf } from './xml-text.js';

/** OBJID of the child METS of a segment folder, also the ID of its file entry in the parent. */
export function childMetsObjId(segment: string): string {
  return `ID_${ncNameOf(segment)}_mets`;
}

function checkIdentity(identity: LobIdentity): void {
  const { schema, table, column, row } = identity;
  const ok =
    Number.isSafeInteger(schema) &&
    schema >= 0 &&
    Number.isSafeInteger(table) &&
    table >= 0 &&
    Number.isSafeInteger(column) &&
    column >= 1 &&
    Number.isSafeInteger(row) &&
    row >= 1;
  if (!ok) {
    throw new Error(
      `LOB identity schema ${schema}, table ${table}, column ${column}, row ${row} is not valid (schema and table from 0, ` +
        `column and row from 1).`,
    );
  }
  if (identity.part !== undefined && identity.part.length === 0) throw new Error('A LOB part name must not be empty.');
}

/** OWNERID of a LOB file: the cell, `s0.t2.c4.r1`. */
export function lobOwnerId(identity: LobIdentity): string {
  checkIdentity(identity);
  return `s${identity.schema}.t${identity.table}.c${identity.column}.r${identity.row}`;
}

/** ID of a LOB file: the OWNERID, plus `.p<part>` for one part of a split LOB (`.p0` ... `.pz`). */
export function lobFileId(identity: LobIdentity): string {
  const owner = lobOwnerId(identity);
  return identity.part === undefined ? owner : `${owner}.p${ncNameOf(identity.part)}`;
}
