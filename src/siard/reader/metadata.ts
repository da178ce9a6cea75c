/**
 * `header/metadata.xml` -> the archive model, for SIARD 1.0 (namespace .../siard/1.0/metadata.xsd)
 * and 2.x (.../siard/2/metadata.xsd). Elements are matched by local name, so both versions share
 * one mapping; the differences handled: SIARD 1.0 `<messageDigest>MD5HEX</messageDigest>` versus
 * 2.x `<messageDigest><digestType/><digest/></messageDigest>`, 1.0 column `<folder>`.
 */
import { SiardOcflError } from '../../errors.js';
import { columnShape, typeCatalog, type CellShape } from '../cell-shape.js';
import { dialectOf } from '../lob-location.js';
import {
  SIARD_DIGEST_TYPES,
  type SiardArchive,
  type SiardCheckConstraint,
  type SiardColumn,
  type SiardDigestType,
  type SiardAttribute,
  type SiardField,
  type SiardForeignKey,
  type SiardMatchType,
  type SiardMessageDigest,
  type SiardParameter,
  type SiardPrivilege,
  type SiardReferentialAction,
  type SiardRole,
  type SiardRoutine,
  type SiardSchema,
  type SiardTable,
  type SiardTrigger,
  type SiardType,
  type SiardUniqueKey,
  type SiardView,
} from '../model.js';
import { unescapeSiard } from './escape.js';
import type { SiardOtherObject, SiardReadColumnExtras, SiardReadField, SiardReadMetadata } from './types.js';
import { child, children, childText, parseXmlTree, type XmlElement } from './xml-tree.js';

const SIARD_NAMESPACES = {
  '1.0': 'http://www.bar.admin.ch/xmlns/siard/1.0/metadata.xsd',
  '2': 'http://www.bar.admin.ch/xmlns/siard/2/metadata.xsd',
} as const;

/** Normalises a digestType ("md5", "SHA256" ...) to the XSD spelling, or undefined. */
export function normaliseSiardDigestType(raw: string | undefined): SiardDigestType | undefined {
  if (raw === undefined) return undefined;
  const t = raw.trim().toUpperCase().replace(/_/g, '-');
  const canon = t === 'SHA1' ? 'SHA-1' : t === 'SHA256' ? 'SHA-256' : t;
  return (SIARD_DIGEST_TYPES as readonly string[]).includes(canon) ? (canon as SiardDigestType) : undefined;
}

/** SIARD 1.0 writes the digest type and value run together: "MD5DA01018D...". */
function parseMessageDigest(el: XmlElement, warnings: string[]): SiardMessageDigest | undefined {
  const type = childText(el, 'digestType');
  const value = childText(el, 'digest');
  if (type !== undefined || value !== undefined) {
    const digestType = normaliseSiardDigestType(type);
    if (!digestType || !value) {
      warnings.push(`messageDigest with digestType "${type ?? ''}" is not usable and was ignored.`);
      return undefined;
    }
    return { digestType, digest: value.trim().toLowerCase() };
  }
  const m = /^\s*(MD5|SHA-?1|SHA-?256)\s*([0-9A-Fa-f]+)\s*$/i.exec(el.text);
  if (!m) {
    if (el.text.trim() !== '') warnings.push(`messageDigest "${el.text.trim()}" is not understood and was ignored.`);
    return undefined;
  }
  return { digestType: normaliseSiardDigestType(m[1]!)!, digest: m[2]!.toLowerCase() };
}

function text(el: XmlElement | undefined, name: string): string | undefined {
  const t = childText(el, name);
  return t === undefined ? undefined : unescapeSiard(t);
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function parseInteger(value: string | undefined, what: string): number | undefined {
  if (value === undefined) return undefined;
  const t = value.trim();
  if (!/^\d+$/.test(t))
    throw new SiardOcflError(`metadata.xml: ${what} "${value}" is not a non-negative integer.`, { code: 'SIARD_METADATA', exitCode: 1 });
  const n = Number(t);
  if (!Number.isSafeInteger(n))
    throw new SiardOcflError(`metadata.xml: ${what} ${t} is too large.`, { code: 'SIARD_METADATA', exitCode: 1 });
  return n;
}

function parseField(el: XmlElement): SiardReadField {
  return {
    name: text(el, 'name') ?? '',
    ...optional('lobFolder', childText(el, 'lobFolder')?.trim()),
    ...optional('mimeType', childText(el, 'mimeType')?.trim()),
    ...optional('type', childText(el, 'type')?.trim()),
    ...optional('typeSchema', text(el, 'typeSchema')),
    ...optional('typeName', text(el, 'typeName')),
    fields: children(child(el, 'fields'), 'field').map(parseField),
  };
}

/** A `<field>` as the model holds it (fieldType: name, lobFolder, fields, mimeType, description). */
function modelField(el: XmlElement): SiardField {
  const fields = children(child(el, 'fields'), 'field').map(modelField);
  return {
    name: text(el, 'name') ?? '',
    ...optional('lobFolder', childText(el, 'lobFolder')?.trim()),
    ...(fields.length > 0 ? { fields } : {}),
    ...optional('mimeType', childText(el, 'mimeType')?.trim()),
    ...optional('description', text(el, 'description')),
  };
}

function parseAttribute(el: XmlElement, where: string): SiardAttribute {
  const nullable = childText(el, 'nullable')?.trim();
  return {
    name: text(el, 'name') ?? '',
    ...optional('type', childText(el, 'type')?.trim()),
    ...optional('typeSchema', text(el, 'typeSchema')),
    ...optional('typeName', text(el, 'typeName')),
    ...optional('typeOriginal', text(el, 'typeOriginal')),
    ...optional('nullable', nullable === undefined ? undefined : nullable === 'true' || nullable === '1'),
    ...optional('defaultValue', text(el, 'defaultValue')),
    ...optional('cardinality', parseInteger(childText(el, 'cardinality'), `cardinality of ${where}`)),
    ...optional('description', text(el, 'description')),
  };
}

/**
 * Gives the read fields of a UDT column the predefined type of each attribute (creating the
 * fields a producer left out), so LOBs nested in UDT values have a family (text or bytes).
 */
function annotateFields(fields: SiardReadField[], shape: CellShape): void {
  if (shape.kind !== 'udt') return;
  shape.attributes.forEach((a, i) => {
    const field = (fields[i] ??= { name: a.name, fields: [] });
    const inner = a.shape.kind === 'array' ? a.shape.element : a.shape;
    if (inner.kind === 'scalar' && field.type === undefined) field.type = inner.type;
    if (a.shape.kind === 'udt') annotateFields(field.fields, a.shape);
  });
}

function parseColumn(el: XmlElement, where: string): { column: SiardColumn; extras: SiardReadColumnExtras } {
  const nullable = childText(el, 'nullable')?.trim();
  const fields = children(child(el, 'fields'), 'field').map(modelField);
  const column: SiardColumn = {
    name: text(el, 'name') ?? '',
    ...optional('lobFolder', childText(el, 'lobFolder')?.trim()),
    ...optional('type', childText(el, 'type')?.trim()),
    ...optional('typeSchema', text(el, 'typeSchema')),
    ...optional('typeName', text(el, 'typeName')),
    ...optional('typeOriginal', text(el, 'typeOriginal')),
    ...optional('mimeType', childText(el, 'mimeType')?.trim()),
    ...optional('nullable', nullable === undefined ? undefined : nullable === 'true' || nullable === '1'),
    ...optional('defaultValue', text(el, 'defaultValue')),
    ...(fields.length > 0 ? { fields } : {}),
    ...optional('cardinality', parseInteger(childText(el, 'cardinality'), `cardinality of ${where}`)),
    ...optional('description', text(el, 'description')),
  };
  const extras: SiardReadColumnExtras = {
    fields: children(child(el, 'fields'), 'field').map(parseField),
    ...optional('folder', childText(el, 'folder')?.trim()),
  };
  return { column, extras };
}

function parseUniqueKey(el: XmlElement): SiardUniqueKey {
  return {
    name: text(el, 'name') ?? '',
    ...optional('description', text(el, 'description')),
    columns: children(el, 'column').map((c) => unescapeSiard(c.text)),
  };
}

function parseCheckConstraint(el: XmlElement): SiardCheckConstraint {
  return {
    name: text(el, 'name') ?? '',
    condition: text(el, 'condition') ?? '',
    ...optional('description', text(el, 'description')),
  };
}

function parseForeignKey(el: XmlElement): SiardForeignKey {
  return {
    name: text(el, 'name') ?? '',
    referencedSchema: text(el, 'referencedSchema') ?? '',
    referencedTable: text(el, 'referencedTable') ?? '',
    references: children(el, 'reference').map((r) => ({ column: text(r, 'column') ?? '', referenced: text(r, 'referenced') ?? '' })),
    ...optional('matchType', childText(el, 'matchType')?.trim() as SiardMatchType | undefined),
    ...optional('deleteAction', childText(el, 'deleteAction')?.trim() as SiardReferentialAction | undefined),
    ...optional('updateAction', childText(el, 'updateAction')?.trim() as SiardReferentialAction | undefined),
    ...optional('description', text(el, 'description')),
  };
}

/**
 * Parses metadata.xml. `what` names the file in messages (e.g. "x.siard: header/metadata.xml").
 * Throws SiardOcflError (exit 1) when it is not SIARD metadata at all.
 */
export function parseSiardMetadata(xml: string, what: string): SiardReadMetadata {
  const root = parseXmlTree(xml, what);
  if (root.name !== 'siardArchive') {
    throw new SiardOcflError(`${what}: the root element is <${root.name}>, not <siardArchive>.`, { code: 'SIARD_METADATA', exitCode: 1 });
  }
  const warnings: string[] = [];
  const dropped: string[] = [];
  if (root.ns !== SIARD_NAMESPACES['1.0'] && root.ns !== SIARD_NAMESPACES['2']) {
    warnings.push(`${what}: unexpected namespace "${root.ns}"; read as SIARD anyway.`);
  }
  const siardVersion = root.attributes['version'] ?? (root.ns === SIARD_NAMESPACES['1.0'] ? '1.0' : '');
  const columnExtras: SiardReadColumnExtras[][][] = [];
  const read = { what, warnings };
  const schemas: SiardSchema[] = children(child(root, 'schemas'), 'schema').map((s) => {
    const tableExtras: SiardReadColumnExtras[][] = [];
    columnExtras.push(tableExtras);
    return parseSchema(s, read, tableExtras);
  });
  resolveDistinctBases(schemas);
  annotateUdtFields(schemas, columnExtras);
  const archive = parseArchive(root, siardVersion, schemas, warnings, dropped);
  return {
    archive,
    siardVersion,
    namespace: root.ns,
    columnExtras,
    dialect: dialectOf(archive.producerApplication),
    warnings,
    otherObjects: otherObjects(archive),
    dropped,
  };
}

/** Where a metadata.xml is being read: its name for messages, and the warnings gathered so far. */
interface MetadataRead {
  what: string;
  warnings: string[];
}

/** One <schema>; the extras of its tables' columns go to `tableExtras`, table by table. */
function parseSchema(s: XmlElement, read: MetadataRead, tableExtras: SiardReadColumnExtras[][]): SiardSchema {
  const schemaName = text(s, 'name') ?? '';
  const tables: SiardTable[] = children(child(s, 'tables'), 'table').map((t) => parseTable(t, schemaName, read, tableExtras));
  const views: SiardView[] = children(child(s, 'views'), 'view').map((v) => parseView(v, schemaName));
  const types: SiardType[] = children(child(s, 'types'), 'type').map((ty) => parseType(ty, schemaName));
  const routines = children(child(s, 'routines'), 'routine').map((r, ri) => parseRoutine(r, `routine ${ri + 1} of schema ${schemaName}`));
  return {
    name: schemaName,
    folder: childText(s, 'folder')?.trim() ?? '',
    ...optional('description', text(s, 'description')),
    ...(types.length > 0 ? { types } : {}),
    tables,
    views,
    ...optionalList('routines', routines),
  };
}

function parseTable(t: XmlElement, schemaName: string, read: MetadataRead, tableExtras: SiardReadColumnExtras[][]): SiardTable {
  const tableName = text(t, 'name') ?? '';
  const parsed = children(child(t, 'columns'), 'column').map((c, ci) => parseColumn(c, `${schemaName}.${tableName} column ${ci + 1}`));
  tableExtras.push(parsed.map((p) => p.extras));
  const pk = child(t, 'primaryKey');
  const rows = parseInteger(childText(t, 'rows'), `rows of table ${schemaName}.${tableName}`);
  if (rows === undefined) read.warnings.push(`${read.what}: table ${schemaName}.${tableName} has no <rows>.`);
  return {
    name: tableName,
    folder: childText(t, 'folder')?.trim() ?? '',
    ...optional('description', text(t, 'description')),
    columns: parsed.map((p) => p.column),
    ...optional('primaryKey', pk ? parseUniqueKey(pk) : undefined),
    foreignKeys: children(child(t, 'foreignKeys'), 'foreignKey').map(parseForeignKey),
    candidateKeys: children(child(t, 'candidateKeys'), 'candidateKey').map(parseUniqueKey),
    checkConstraints: children(child(t, 'checkConstraints'), 'checkConstraint').map(parseCheckConstraint),
    ...optionalList('triggers', children(child(t, 'triggers'), 'trigger').map(parseTrigger)),
    rows: rows ?? 0,
  };
}

function parseView(v: XmlElement, schemaName: string): SiardView {
  const viewName = text(v, 'name');
  return {
    name: viewName ?? '',
    ...optional('query', text(v, 'query')),
    ...optional('queryOriginal', text(v, 'queryOriginal')),
    ...optional('description', text(v, 'description')),
    columns: children(child(v, 'columns'), 'column').map((c, ci) => {
      return parseColumn(c, `view ${schemaName}.${viewName} column ${ci + 1}`).column;
    }),
    ...optional('rows', parseInteger(childText(v, 'rows'), `rows of view ${schemaName}.${viewName}`)),
  };
}

function parseType(ty: XmlElement, schemaName: string): SiardType {
  const typeName = text(ty, 'name') ?? '';
  const attributes = children(child(ty, 'attributes'), 'attribute').map((a, ai) => {
    return parseAttribute(a, `attribute ${ai + 1} of type ${schemaName}.${typeName}`);
  });
  return {
    name: typeName,
    category: text(ty, 'category')?.trim().toLowerCase() === 'distinct' ? 'distinct' : 'udt',
    ...optional('underSchema', text(ty, 'underSchema')),
    ...optional('underType', text(ty, 'underType')),
    instantiable: text(ty, 'instantiable')?.trim() === 'true',
    final: text(ty, 'final')?.trim() === 'true',
    ...optional('base', text(ty, 'base')?.trim()),
    ...(attributes.length > 0 ? { attributes } : {}),
    ...optional('description', text(ty, 'description')),
  };
}

/** Columns of a DISTINCT type are read as their base type. */
function resolveDistinctBases(schemas: SiardSchema[]): void {
  const bases = new Map<string, string>();
  for (const s of schemas) {
    for (const ty of s.types ?? []) if (ty.category === 'distinct' && ty.base) bases.set(`${s.name}\u0000${ty.name}`, ty.base);
  }
  for (const s of schemas) {
    for (const t of s.tables) {
      for (const c of t.columns) {
        if (c.type !== undefined || c.typeName === undefined) continue;
        const base = bases.get(`${c.typeSchema ?? s.name}\u0000${c.typeName}`);
        if (base) c.baseType = base;
      }
    }
  }
}

/** Fields of UDT columns learn their attributes' types (a type that does not resolve is left as read). */
function annotateUdtFields(schemas: SiardSchema[], columnExtras: SiardReadColumnExtras[][][]): void {
  const catalog = typeCatalog(schemas);
  schemas.forEach((s, si) => {
    s.tables.forEach((t, ti) => {
      t.columns.forEach((c, ci) => {
        if (c.typeName === undefined || c.type !== undefined) return;
        const extras = columnExtras[si]?.[ti]?.[ci];
        if (!extras) return;
        try {
          annotateFields(extras.fields, columnShape(c, s.name, catalog, c.name));
        } catch {
          // unresolvable type: nested LOBs keep an unknown family, as before
        }
      });
    });
  });
}

/** The archive-level elements around the schemas, in the order SIARD lists them. */
function parseArchive(root: XmlElement, siardVersion: string, schemas: SiardSchema[], warnings: string[], dropped: string[]): SiardArchive {
  const messageDigests = children(root, 'messageDigest')
    .map((m) => parseMessageDigest(m, warnings))
    .filter((m): m is SiardMessageDigest => m !== undefined);
  return {
    version: siardVersion,
    dbname: text(root, 'dbname') ?? '',
    ...optional('description', text(root, 'description')),
    ...optional('archiver', text(root, 'archiver')),
    ...optional('archiverContact', text(root, 'archiverContact')),
    dataOwner: text(root, 'dataOwner') ?? '',
    dataOriginTimespan: text(root, 'dataOriginTimespan') ?? '',
    ...optional('lobFolder', childText(root, 'lobFolder')?.trim()),
    ...optional('producerApplication', text(root, 'producerApplication')),
    archivalDate: childText(root, 'archivalDate')?.trim() ?? '',
    messageDigests,
    ...optional('clientMachine', text(root, 'clientMachine')),
    ...optional('databaseProduct', text(root, 'databaseProduct')),
    ...optional('connection', text(root, 'connection')),
    ...optional('databaseUser', text(root, 'databaseUser')),
    schemas,
    users: children(child(root, 'users'), 'user').map((u) => ({
      name: text(u, 'name') ?? '',
      ...optional('description', text(u, 'description')),
    })),
    ...optionalList('roles', children(child(root, 'roles'), 'role').map(parseRole)),
    ...optionalList(
      'privileges',
      children(child(root, 'privileges'), 'privilege').map((p) => parsePrivilege(p, dropped)),
    ),
  };
}

function parseTrigger(el: XmlElement): SiardTrigger {
  const time = (text(el, 'actionTime') ?? '').trim().toUpperCase().replace(/\s+/g, ' ');
  return {
    name: text(el, 'name') ?? '',
    actionTime: time === 'AFTER' || time === 'INSTEAD OF' ? time : 'BEFORE',
    triggerEvent: text(el, 'triggerEvent') ?? '',
    triggeredAction: text(el, 'triggeredAction') ?? '',
    ...optional('description', text(el, 'description')),
  };
}

function optionalList<K extends string, T>(key: K, list: T[]): { [P in K]?: T[] } {
  return (list.length > 0 ? { [key]: list } : {}) as { [P in K]?: T[] };
}

/**
 * A routine (routineType). SIARD 1.0 had no `specificName`; its routine's name stands in, which is
 * unique there (1.0 did not allow overloading).
 */
function parseRoutine(el: XmlElement, where: string): SiardRoutine {
  const name = text(el, 'name') ?? '';
  const parameters = children(child(el, 'parameters'), 'parameter').map((p, pi) => parseParameter(p, `parameter ${pi + 1} of ${where}`));
  return {
    specificName: text(el, 'specificName') ?? name,
    name,
    ...optional('description', text(el, 'description')),
    ...optional('source', text(el, 'source')),
    ...optional('body', text(el, 'body')),
    ...optional('characteristic', text(el, 'characteristic')),
    ...optional('returnType', text(el, 'returnType')),
    ...optionalList('parameters', parameters),
  };
}

function parseParameter(el: XmlElement, where: string): SiardParameter {
  return {
    name: text(el, 'name') ?? '',
    mode: text(el, 'mode') ?? '',
    ...optional('type', childText(el, 'type')?.trim()),
    ...optional('typeSchema', text(el, 'typeSchema')),
    ...optional('typeName', text(el, 'typeName')),
    ...optional('typeOriginal', text(el, 'typeOriginal')),
    ...optional('cardinality', parseInteger(childText(el, 'cardinality'), `cardinality of ${where}`)),
    ...optional('description', text(el, 'description')),
  };
}

function parseRole(el: XmlElement): SiardRole {
  return { name: text(el, 'name') ?? '', admin: text(el, 'admin') ?? '', ...optional('description', text(el, 'description')) };
}

/** A grant; an `option` other than ADMIN or GRANT (privOptionType) is left out and named in `dropped`. */
function parsePrivilege(el: XmlElement, dropped: string[]): SiardPrivilege {
  const privilege: SiardPrivilege = {
    type: text(el, 'type') ?? '',
    ...optional('object', text(el, 'object')),
    grantor: text(el, 'grantor') ?? '',
    grantee: text(el, 'grantee') ?? '',
  };
  const option = childText(el, 'option')?.trim().replace(/\s+/g, ' ');
  if (option === 'ADMIN' || option === 'GRANT') privilege.option = option;
  else if (option !== undefined) {
    dropped.push(`the option "${option}" (neither ADMIN nor GRANT) of the privilege ${privilegeName(privilege)}`);
  }
  const description = text(el, 'description');
  if (description !== undefined) privilege.description = description;
  return privilege;
}

function privilegeName(p: SiardPrivilege): string {
  return `${p.type} on ${p.object ?? ''} to ${p.grantee}`;
}

/** Routines, roles and privileges: named so a restore can say it left them out. */
function otherObjects(archive: SiardArchive): SiardOtherObject[] {
  const out: SiardOtherObject[] = [];
  for (const s of archive.schemas) for (const r of s.routines ?? []) out.push({ kind: 'routine', name: `${s.name}.${r.name}` });
  for (const r of archive.roles ?? []) out.push({ kind: 'role', name: r.name });
  for (const p of archive.privileges ?? []) out.push({ kind: 'privilege', name: privilegeName(p) });
  return out;
}
