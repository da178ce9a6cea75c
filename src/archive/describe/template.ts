/**
 * The describe template: every describable item of a metadata.xml with its current text, as
 * issue 33 gives it:
 *   {"database": {"description", "archiver", "archiverContact", "dataOwner", "dataOriginTimespan"},
 *    "schemas": {"<schema>": {"description", "tables": {"<table>": {"description",
 *      "columns": {"<column>": {"description", "fields": {"<field>": {"description", "fields"}}}},
 *      "primaryKey", "foreignKeys", "candidateKeys", "checkConstraints", "triggers":
 *      {"<name>": {"description"}}}}, "views": {"<view>": {"description", "columns": {...}}},
 *      "routines": {"<specificName>": {"description", "parameters": {"<name>": {"description"}}}},
 *      "types": {"<type>": {"description", "attributes": {"<name>": {"description"}}}}}},
 *    "users": {"<user>": {"description"}}, "roles": {"<role>": {"description"}},
 *    "privileges": {"<SELECT ON s.t TO grantee GRANTED BY grantor>": {"description"}}}
 * That is every element of metadata.xsd that has a <description>. A privilege has no name: it is
 * named by what it grants, as SQL's GRANT would say it (privilegeName).
 * A text absent from metadata.xml (or an empty optional one) is null. In a template given to apply, a field left out or null
 * means unchanged and "" clears it. Collections other than tables and columns appear only when the
 * archive holds some. Where an item sits in metadata.xml, and which elements its <description>
 * follows (the metadata.xsd sequence), is said once here, for reading and for writing; the
 * collections are named as the archive model (siard/model.ts) names them, so that model.ts
 * applies a template to the model from the same table.
 */
import { unescapeSiard } from '../../siard/reader/escape.js';
import { childNamed, childrenNamed, type PlacedElement } from './xml-positions.js';

export type Text = string | null;

export interface DescribedItem {
  description?: Text;
  [collection: string]: Text | undefined | Record<string, DescribedItem>;
}

export interface DescribeTemplate {
  database?: Partial<Record<DatabaseField, Text>>;
  schemas?: Record<string, DescribedItem>;
  users?: Record<string, DescribedItem>;
  roles?: Record<string, DescribedItem>;
  privileges?: Record<string, DescribedItem>;
}

/** Database-level texts, in metadata.xsd order; dataOwner and dataOriginTimespan are mandatory elements. */
export const DATABASE_FIELDS = ['description', 'archiver', 'archiverContact', 'dataOwner', 'dataOriginTimespan'] as const;
export type DatabaseField = (typeof DATABASE_FIELDS)[number];
export const MANDATORY_DATABASE_FIELDS: ReadonlySet<string> = new Set(['dataOwner', 'dataOriginTimespan']);

/** A field of an item, by element name (metadata.xml) or property name (the archive model). */
type FieldOf = (name: string) => string | undefined;

export interface ItemKind {
  /** the element naming the item among its siblings */
  key: string;
  /** the item's name from its fields, when no one element names it (privileges) */
  nameOf?: (field: FieldOf) => string;
  /** the elements that precede <description> in the item (metadata.xsd sequence) */
  before: readonly string[];
  collections: Readonly<Record<string, Collection>>;
}

export interface Collection {
  /** from the parent item: the wrapper element (if any) and the item element */
  wrapper?: string;
  element: string;
  kind: ItemKind;
  /** shown in a template even when empty */
  always?: boolean;
}

/** The name of an item of `kind`, whose fields `field` reads. */
export function nameOf(kind: ItemKind, field: FieldOf): string {
  return kind.nameOf ? kind.nameOf(field) : (field(kind.key) ?? field('name') ?? '');
}

/** A grant named as SQL says it: "SELECT ON HR.JOBS TO OE GRANTED BY HR", a role grant without "ON". */
function privilegeName(field: FieldOf): string {
  const object = field('object');
  const option = field('option');
  return (
    `${field('type') ?? ''}${object ? ` ON ${object}` : ''} TO ${field('grantee') ?? ''} GRANTED BY ${field('grantor') ?? ''}` +
    (option ? ` WITH ${option} OPTION` : '')
  );
}

const leaf = (key: string, before: readonly string[]): ItemKind => ({ key, before, collections: {} });
const collection = (wrapper: string, element: string, kind: ItemKind): Collection => ({ wrapper, element, kind });

// A field of a UDT or ARRAY column names a part of the cell, and may have fields of its own.
const fieldCollections: Record<string, Collection> = {};
const fields = collection('fields', 'field', {
  key: 'name',
  before: ['name', 'lobFolder', 'fields', 'mimeType'],
  collections: fieldCollections,
});
fieldCollections['fields'] = fields;

const column: ItemKind = {
  key: 'name',
  before: [
    'name',
    'lobFolder',
    'type',
    'mimeType',
    'typeSchema',
    'typeName',
    'typeOriginal',
    'fields',
    'nullable',
    'defaultValue',
    'cardinality',
  ],
  collections: { fields },
};
const columns: Collection = { ...collection('columns', 'column', column), always: true };
const uniqueKey = leaf('name', ['name']);

const table: ItemKind = {
  key: 'name',
  before: ['name', 'folder'],
  collections: {
    columns,
    primaryKey: { element: 'primaryKey', kind: uniqueKey },
    foreignKeys: collection(
      'foreignKeys',
      'foreignKey',
      leaf('name', ['name', 'referencedSchema', 'referencedTable', 'reference', 'matchType', 'deleteAction', 'updateAction']),
    ),
    candidateKeys: collection('candidateKeys', 'candidateKey', uniqueKey),
    checkConstraints: collection('checkConstraints', 'checkConstraint', leaf('name', ['name', 'condition'])),
    triggers: collection('triggers', 'trigger', leaf('name', ['name', 'actionTime', 'triggerEvent', 'aliasList', 'triggeredAction'])),
  },
};

const routine: ItemKind = {
  // SIARD 1.0 routines have no specificName: their name stands in (as the reader does).
  key: 'specificName',
  before: ['specificName', 'name'],
  collections: {
    parameters: collection(
      'parameters',
      'parameter',
      leaf('name', ['name', 'mode', 'type', 'typeSchema', 'typeName', 'typeOriginal', 'cardinality']),
    ),
  },
};

const type: ItemKind = {
  key: 'name',
  before: ['name', 'category', 'underSchema', 'underType', 'instantiable', 'final', 'base', 'attributes'],
  collections: {
    attributes: collection(
      'attributes',
      'attribute',
      leaf('name', ['name', 'type', 'typeSchema', 'typeName', 'typeOriginal', 'nullable', 'defaultValue', 'cardinality']),
    ),
  },
};

const schema: ItemKind = {
  key: 'name',
  before: ['name', 'folder'],
  collections: {
    tables: { ...collection('tables', 'table', table), always: true },
    views: collection('views', 'view', { key: 'name', before: ['name', 'query', 'queryOriginal'], collections: { columns } }),
    routines: collection('routines', 'routine', routine),
    types: collection('types', 'type', type),
  },
};

/** The root's collections (database-level texts are handled apart). */
export const ROOT_COLLECTIONS: Readonly<Record<string, Collection>> = {
  schemas: { ...collection('schemas', 'schema', schema), always: true },
  users: collection('users', 'user', leaf('name', ['name'])),
  roles: collection('roles', 'role', leaf('name', ['name', 'admin'])),
  privileges: collection('privileges', 'privilege', {
    key: 'type',
    nameOf: privilegeName,
    before: ['type', 'object', 'grantor', 'grantee', 'option'],
    collections: {},
  }),
};

/** The database-level elements that precede each optional one. */
export const DATABASE_BEFORE: Readonly<Record<string, readonly string[]>> = {
  description: ['dbname'],
  archiver: ['dbname', 'description'],
  archiverContact: ['dbname', 'description', 'archiver'],
};

export function textOf(el: PlacedElement | undefined): Text {
  return el === undefined ? null : unescapeSiard(el.text);
}

/** An optional text as a template shows it: an empty element says no more than an absent one. */
function optionalTextOf(el: PlacedElement | undefined): Text {
  return textOf(el) || null;
}

/** The items of `collection` under `parent`, by name, in document order. */
export function itemsOf(parent: PlacedElement, collection: Collection): Array<[string, PlacedElement]> {
  const holder = collection.wrapper === undefined ? [parent] : childrenNamed(parent, collection.wrapper);
  const out: Array<[string, PlacedElement]> = [];
  for (const h of holder) {
    for (const el of childrenNamed(h, collection.element))
      out.push([nameOf(collection.kind, (field) => textOf(childNamed(el, field)) ?? undefined), el]);
  }
  return out;
}

function itemTemplate(el: PlacedElement, kind: ItemKind): DescribedItem {
  const item: DescribedItem = { description: optionalTextOf(childNamed(el, 'description')) };
  for (const [name, c] of Object.entries(kind.collections)) {
    const items = itemsOf(el, c);
    if (items.length > 0 || c.always) item[name] = collectionTemplate(items, c.kind);
  }
  return item;
}

function collectionTemplate(items: Array<[string, PlacedElement]>, kind: ItemKind): Record<string, DescribedItem> {
  const out: Record<string, DescribedItem> = {};
  for (const [name, el] of items) out[name] ??= itemTemplate(el, kind);
  return out;
}

/** The template of a metadata.xml read by placedTree. */
export function templateOf(root: PlacedElement): DescribeTemplate {
  const database: Partial<Record<DatabaseField, Text>> = {};
  for (const f of DATABASE_FIELDS) {
    const el = childNamed(root, f);
    database[f] = MANDATORY_DATABASE_FIELDS.has(f) ? textOf(el) : optionalTextOf(el);
  }
  const template: DescribeTemplate = { database };
  for (const [name, c] of Object.entries(ROOT_COLLECTIONS)) {
    const items = itemsOf(root, c);
    if (items.length > 0 || c.always) template[name as 'schemas'] = collectionTemplate(items, c.kind);
  }
  return template;
}

/** The items of `c` and below as --help lists them: "tables (columns (fields (nested)), primaryKey, ...)". */
function itemsList(name: string, c: Collection, above: readonly Collection[]): string {
  const inner = Object.entries(c.kind.collections).map(([n, sub]) =>
    above.includes(sub) || sub === c ? 'nested' : itemsList(n, sub, [...above, c]),
  );
  return inner.length > 0 ? `${name} (${inner.join(', ')})` : name;
}

/** Every describable item, from the tables templates are read and applied by (describe --help). */
export function describableItems(): string {
  const collections = Object.entries(ROOT_COLLECTIONS).map(([n, c]) => itemsList(n, c, []));
  return `database (${DATABASE_FIELDS.join(', ')}), ${collections.join(', ')}`;
}
