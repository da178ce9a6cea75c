/**
 * Serialises the SIARD model as `header/metadata.xml` (SIARD 2.2 metadata.xsd, element order as
 * the schema's sequences require). Text goes through SIARD escaping (G_3.3).
 */
import type {
  SiardArchive,
  SiardAttribute,
  SiardCheckConstraint,
  SiardColumn,
  SiardField,
  SiardForeignKey,
  SiardPrivilege,
  SiardRole,
  SiardRoutine,
  SiardSchema,
  SiardTable,
  SiardUniqueKey,
  SiardView,
} from './model.js';
import { MAX_DECLARED_ARRAY_ELEMENTS } from './table-xsd.js';
import { escapeSiardText } from './xml-text.js';

const SIARD_METADATA_NAMESPACE = 'http://www.bar.admin.ch/xmlns/siard/2/metadata.xsd';

class XmlOut {
  private readonly parts: string[] = [];
  depth = 0;
  line(s: string): void {
    this.parts.push('  '.repeat(this.depth) + s + '\n');
  }
  open(tag: string): void {
    this.line(`<${tag}>`);
    this.depth++;
  }
  close(tag: string): void {
    this.depth--;
    this.line(`</${tag}>`);
  }
  el(tag: string, value: string | number | boolean | undefined): void {
    if (value === undefined) return;
    this.line(`<${tag}>${escapeSiardText(String(value))}</${tag}>`);
  }
  toString(): string {
    return this.parts.join('');
  }
}

export function metadataXml(archive: SiardArchive): string {
  const x = new XmlOut();
  x.line('<?xml version="1.0" encoding="UTF-8" standalone="no"?>');
  x.line(
    `<siardArchive xmlns="${SIARD_METADATA_NAMESPACE}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ` +
      `xsi:schemaLocation="${SIARD_METADATA_NAMESPACE} metadata.xsd" version="${archive.version}">`,
  );
  x.depth = 1;
  x.el('dbname', archive.dbname);
  x.el('description', archive.description);
  x.el('archiver', archive.archiver);
  x.el('archiverContact', archive.archiverContact);
  x.el('dataOwner', archive.dataOwner);
  x.el('dataOriginTimespan', archive.dataOriginTimespan);
  x.el('lobFolder', archive.lobFolder);
  x.el('producerApplication', archive.producerApplication);
  x.el('archivalDate', archive.archivalDate);
  for (const d of archive.messageDigests) {
    x.open('messageDigest');
    x.el('digestType', d.digestType);
    x.el('digest', d.digest);
    x.close('messageDigest');
  }
  x.el('clientMachine', archive.clientMachine);
  x.el('databaseProduct', archive.databaseProduct);
  x.el('connection', archive.connection);
  x.el('databaseUser', archive.databaseUser);
  x.open('schemas');
  for (const s of archive.schemas) schema(x, s);
  x.close('schemas');
  x.open('users');
  for (const u of archive.users) {
    x.open('user');
    x.el('name', u.name);
    x.el('description', u.description);
    x.close('user');
  }
  x.close('users');
  if (archive.roles && archive.roles.length > 0) {
    x.open('roles');
    for (const r of archive.roles) role(x, r);
    x.close('roles');
  }
  if (archive.privileges && archive.privileges.length > 0) {
    x.open('privileges');
    for (const p of archive.privileges) privilege(x, p);
    x.close('privileges');
  }
  x.depth = 0;
  x.line('</siardArchive>');
  return x.toString();
}

function schema(x: XmlOut, s: SiardSchema): void {
  x.open('schema');
  x.el('name', s.name);
  x.el('folder', s.folder);
  x.el('description', s.description);
  if (s.types && s.types.length > 0) {
    x.open('types');
    for (const t of s.types) {
      x.open('type');
      x.el('name', t.name);
      x.el('category', t.category);
      x.el('underSchema', t.underSchema);
      x.el('underType', t.underType);
      x.el('instantiable', t.instantiable);
      x.el('final', t.final);
      x.el('base', t.base);
      if (t.attributes && t.attributes.length > 0) {
        x.open('attributes');
        for (const a of t.attributes) attribute(x, a);
        x.close('attributes');
      }
      x.el('description', t.description);
      x.close('type');
    }
    x.close('types');
  }
  if (s.tables.length > 0) {
    x.open('tables');
    for (const t of s.tables) table(x, t);
    x.close('tables');
  }
  if (s.views.length > 0) {
    x.open('views');
    for (const v of s.views) view(x, v);
    x.close('views');
  }
  if (s.routines && s.routines.length > 0) {
    x.open('routines');
    for (const r of s.routines) routine(x, r);
    x.close('routines');
  }
  x.close('schema');
}

function routine(x: XmlOut, r: SiardRoutine): void {
  x.open('routine');
  x.el('specificName', r.specificName);
  x.el('name', r.name);
  x.el('description', r.description);
  x.el('source', r.source);
  x.el('body', r.body);
  x.el('characteristic', r.characteristic);
  x.el('returnType', r.returnType);
  if (r.parameters && r.parameters.length > 0) {
    x.open('parameters');
    for (const p of r.parameters) {
      x.open('parameter');
      x.el('name', p.name);
      x.el('mode', p.mode);
      if (p.type !== undefined) x.el('type', p.type);
      else {
        x.el('typeSchema', p.typeSchema);
        x.el('typeName', p.typeName);
      }
      x.el('typeOriginal', p.typeOriginal);
      x.el('cardinality', p.cardinality);
      x.el('description', p.description);
      x.close('parameter');
    }
    x.close('parameters');
  }
  x.close('routine');
}

function role(x: XmlOut, r: SiardRole): void {
  x.open('role');
  x.el('name', r.name);
  x.el('admin', r.admin);
  x.el('description', r.description);
  x.close('role');
}

function privilege(x: XmlOut, p: SiardPrivilege): void {
  x.open('privilege');
  x.el('type', p.type);
  x.el('object', p.object);
  x.el('grantor', p.grantor);
  x.el('grantee', p.grantee);
  x.el('option', p.option);
  x.el('description', p.description);
  x.close('privilege');
}

function table(x: XmlOut, t: SiardTable): void {
  x.open('table');
  x.el('name', t.name);
  x.el('folder', t.folder);
  x.el('description', t.description);
  columns(x, t.columns);
  if (t.primaryKey) uniqueKey(x, 'primaryKey', t.primaryKey);
  if (t.foreignKeys.length > 0) {
    x.open('foreignKeys');
    for (const fk of t.foreignKeys) foreignKey(x, fk);
    x.close('foreignKeys');
  }
  if (t.candidateKeys.length > 0) {
    x.open('candidateKeys');
    for (const k of t.candidateKeys) uniqueKey(x, 'candidateKey', k);
    x.close('candidateKeys');
  }
  if (t.checkConstraints && t.checkConstraints.length > 0) {
    x.open('checkConstraints');
    for (const c of t.checkConstraints) checkConstraint(x, c);
    x.close('checkConstraints');
  }
  if (t.triggers && t.triggers.length > 0) {
    x.open('triggers');
    for (const tr of t.triggers) {
      x.open('trigger');
      x.el('name', tr.name);
      x.el('actionTime', tr.actionTime);
      x.el('triggerEvent', tr.triggerEvent);
      x.el('triggeredAction', tr.triggeredAction);
      x.el('description', tr.description);
      x.close('trigger');
    }
    x.close('triggers');
  }
  x.el('rows', t.rows);
  x.close('table');
}

function view(x: XmlOut, v: SiardView): void {
  x.open('view');
  x.el('name', v.name);
  x.el('query', v.query);
  x.el('queryOriginal', v.queryOriginal);
  x.el('description', v.description);
  columns(x, v.columns);
  x.el('rows', v.rows);
  x.close('view');
}

function columns(x: XmlOut, cols: SiardColumn[]): void {
  x.open('columns');
  for (const c of cols) {
    x.open('column');
    x.el('name', c.name);
    x.el('lobFolder', c.lobFolder);
    if (c.type !== undefined) {
      x.el('type', c.type);
      x.el('mimeType', c.mimeType);
    } else {
      x.el('typeSchema', c.typeSchema);
      x.el('typeName', c.typeName);
    }
    x.el('typeOriginal', c.typeOriginal);
    const given = c.fields && c.fields.length > 0 ? c.fields : arrayElementFields(c);
    if (given.length > 0) fields(x, given);
    x.el('nullable', c.nullable);
    x.el('defaultValue', c.defaultValue);
    x.el('cardinality', c.cardinality);
    x.el('description', c.description);
    x.close('column');
  }
  x.close('columns');
}

/**
 * An ARRAY column's elements as fields "name[1]" ... "name[cardinality]" (the recommended names,
 * as SIARD Suite writes them), each with no lobFolder: array elements are always inline. Fields are
 * optional: an array allowing more elements than the table XSD declares whole (an Oracle VARRAY
 * of 2^31 - 1) gets none. A column without fields of its own is written with these (describe
 * gives them to the model to describe them).
 */
export function arrayElementFields(c: SiardColumn): SiardField[] {
  if (!c.cardinality || c.cardinality > MAX_DECLARED_ARRAY_ELEMENTS) return [];
  return Array.from({ length: c.cardinality }, (_, i) => ({ name: `${c.name}[${i + 1}]` }));
}

function attribute(x: XmlOut, a: SiardAttribute): void {
  x.open('attribute');
  x.el('name', a.name);
  if (a.type !== undefined) x.el('type', a.type);
  else {
    x.el('typeSchema', a.typeSchema);
    x.el('typeName', a.typeName);
  }
  x.el('typeOriginal', a.typeOriginal);
  x.el('nullable', a.nullable);
  x.el('defaultValue', a.defaultValue);
  x.el('cardinality', a.cardinality);
  x.el('description', a.description);
  x.close('attribute');
}

/** `<fields>` as given (UDT columns: one per attribute, nested for nested UDTs). */
function fields(x: XmlOut, list: SiardField[]): void {
  x.open('fields');
  for (const f of list) {
    x.open('field');
    x.el('name', f.name);
    x.el('lobFolder', f.lobFolder);
    if (f.fields && f.fields.length > 0) fields(x, f.fields);
    x.el('mimeType', f.mimeType);
    x.el('description', f.description);
    x.close('field');
  }
  x.close('fields');
}

function checkConstraint(x: XmlOut, c: SiardCheckConstraint): void {
  x.open('checkConstraint');
  x.el('name', c.name);
  x.el('condition', c.condition);
  x.el('description', c.description);
  x.close('checkConstraint');
}

function uniqueKey(x: XmlOut, tag: string, k: SiardUniqueKey): void {
  x.open(tag);
  x.el('name', k.name);
  x.el('description', k.description);
  for (const c of k.columns) x.el('column', c);
  x.close(tag);
}

function foreignKey(x: XmlOut, fk: SiardForeignKey): void {
  x.open('foreignKey');
  x.el('name', fk.name);
  x.el('referencedSchema', fk.referencedSchema);
  x.el('referencedTable', fk.referencedTable);
  for (const r of fk.references) {
    x.open('reference');
    x.el('column', r.column);
    x.el('referenced', r.referenced);
    x.close('reference');
  }
  x.el('matchType', fk.matchType);
  x.el('deleteAction', fk.deleteAction);
  x.el('updateAction', fk.updateAction);
  x.el('description', fk.description);
  x.close('foreignKey');
}
