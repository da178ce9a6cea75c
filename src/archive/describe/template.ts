/**
 * The describe template: every describable item of a metadata.xml with its current text, as
 * issue 33 gives it:
 *   {"database": {"description", "archiver", "archiverContact", "dataOwner", "dataOriginTimespan"},
 *    "schemas": {"<schema>": {"description", "tables": {"<table>": {"description",
 *      "columns": {"<column>": {"description"}}, "primaryKey", "foreignKeys", "candidateKeys",
 *      "checkConstraints", "triggers": {"<name>": {"description"}}}}, "views": {"<view>":
 *      {"description", "columns": {...}}}, "routines": {"<specificName>": {"description"}}}},
 *    "users": {"<user>": {"description"}}, "roles": {"<role>": {"description"}}}
 * A text absent from metadata.xml (or an empty optional one) is null. In a template given to apply, a field left out or null
 * means unchanged and "" clears it. Collections other than tables and columns appear only when the
 * archive holds some. Where an item sits in metadata.xml, and which elements its <description>
 * follows (the metadata.xsd sequence), is said once here, for reading and for writing.
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
}

/** Database-level texts, in metadata.xsd order; dataOwner and dataOriginTimespan are mandatory elements. */
export const DATABASE_FIELDS = ['description', 'archiver', 'archiverContact', 'dataOwner', 'dataOriginTimespan'] as const;
export type DatabaseField = (typeof DATABASE_FIELDS)[number];
export const MANDATORY_DATABASE_FIELDS: ReadonlySet<string> = new Set(['dataOwner', 'dataOriginTimespan']);

export interface ItemKind {
  /** the element naming the item among its siblings */
  key: string;
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

const leaf = (key: string, before: readonly string[]): ItemKind => ({ key, before, collections: {} });
const column = leaf('name', [
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
]);
const columns: Collection = { wrapper: 'columns', element: 'column', kind: column, always: true };
const uniqueKey = leaf('name', ['name']);

const table: ItemKind = {
  key: 'name',
  before: ['name', 'folder'],
  collections: {
    columns,
    primaryKey: { element: 'primaryKey', kind: uniqueKey },
    foreignKeys: {
      wrapper: 'foreignKeys',
      element: 'foreignKey',
      kind: leaf('name', ['name', 'referencedSchema', 'referencedTable', 'reference', 'matchType', 'deleteAction', 'updateAction']),
    },
    candidateKeys: { wrapper: 'candidateKeys', element: 'candidateKey', kind: uniqueKey },
    checkConstraints: { wrapper: 'checkConstraints', element: 'checkConstraint', kind: leaf('name', ['name', 'condition']) },
    triggers: {
      wrapper: 'triggers',
      element: 'trigger',
      kind: leaf('name', ['name', 'actionTime', 'triggerEvent', 'aliasList', 'triggeredAction']),
    },
  },
};

const schema: ItemKind = {
  key: 'name',
  before: ['name', 'folder'],
  collections: {
    tables: { wrapper: 'tables', element: 'table', kind: table, always: true },
    views: {
      wrapper: 'views',
      element: 'view',
      kind: { key: 'name', before: ['name', 'query', 'queryOriginal'], collections: { columns } },
    },
    // SIARD 1.0 routines have no specificName: their name stands in (as the reader does).
    routines: { wrapper: 'routines', element: 'routine', kind: leaf('specificName', ['specificName', 'name']) },
  },
};

/** The root's collections (database-level texts are handled apart). */
export const ROOT_COLLECTIONS: Readonly<Record<string, Collection>> = {
  schemas: { wrapper: 'schemas', element: 'schema', kind: schema, always: true },
  users: { wrapper: 'users', element: 'user', kind: leaf('name', ['name']) },
  roles: { wrapper: 'roles', element: 'role', kind: leaf('name', ['name', 'admin']) },
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
    for (const el of childrenNamed(h, collection.element)) {
      const key = childNamed(el, collection.kind.key) ?? childNamed(el, 'name');
      out.push([textOf(key) ?? '', el]);
    }
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
