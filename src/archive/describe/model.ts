/**
 * A describe template applied to the archive model, for `export` and `ingest --describe`: the
 * writer calls it on the archive before it writes metadata.xml (and escapes the texts as it writes
 * every text). The same names and the same rules as on a metadata.xml (apply.ts): a field left out
 * or null is unchanged, "" clears it (dataOwner and dataOriginTimespan: an empty text), and a name
 * the archive does not hold is a UsageError naming it; the export is then aborted, so nothing is
 * visible.
 */
import { UsageError } from '../../errors.js';
import { arrayElementFields } from '../../siard/metadata-xml.js';
import type { SiardArchive, SiardColumn } from '../../siard/model.js';
import { checkTemplateShape } from './template-shape.js';
import {
  DATABASE_FIELDS,
  MANDATORY_DATABASE_FIELDS,
  nameOf,
  ROOT_COLLECTIONS,
  type Collection,
  type DescribedItem,
  type Text,
} from './template.js';

type ModelItem = Record<string, unknown>;

function setText(target: ModelItem, field: string, value: Text | undefined, mandatory = false): void {
  if (value === undefined || value === null) return;
  if (value === '' && !mandatory) delete target[field];
  else target[field] = value;
}

/**
 * Applies `given` to the items under `parent`: the model names each collection as the template
 * does (a list, or the one primaryKey), and an item by the same fields as metadata.xml does.
 */
function describeItems(
  parent: ModelItem,
  collections: Readonly<Record<string, Collection>>,
  given: DescribedItem,
  path: string,
  unknown: string[],
): void {
  for (const [name, c] of Object.entries(collections)) {
    const wanted = given[name] as Record<string, DescribedItem> | null | undefined;
    if (!wanted) continue;
    // An ARRAY column's element fields are the writer's unless the model has some: to describe
    // them, the model gets them (written the same).
    if (name === 'fields' && parent['fields'] === undefined) {
      const made = arrayElementFields(parent as unknown as SiardColumn);
      if (made.length > 0) parent['fields'] = made;
    }
    const held = parent[name];
    const list = (Array.isArray(held) ? held : held ? [held] : []) as ModelItem[];
    for (const [key, item] of Object.entries(wanted)) {
      const el = list.find((x) => nameOf(c.kind, (f) => (typeof x[f] === 'string' ? x[f] : undefined)) === key);
      const at = `${path}${name}.${JSON.stringify(key)}`;
      if (!el) unknown.push(at);
      else if (item) {
        setText(el, 'description', item.description);
        describeItems(el, c.kind.collections, item, `${at}.`, unknown);
      }
    }
  }
}

/** The function the writer calls on the archive (SiardExportOptions.describe). */
export function describeArchiveModel(templateArg: unknown): (archive: SiardArchive) => void {
  const template = checkTemplateShape(templateArg);
  return (archive) => {
    const model = archive as unknown as ModelItem;
    for (const f of DATABASE_FIELDS) setText(model, f, template.database?.[f], MANDATORY_DATABASE_FIELDS.has(f));
    const unknown: string[] = [];
    describeItems(model, ROOT_COLLECTIONS, template as DescribedItem, '', unknown);
    if (unknown.length > 0) {
      const shown = unknown.slice(0, 5).join('; ') + (unknown.length > 5 ? `; and ${unknown.length - 5} more` : '');
      throw new UsageError(
        `The --describe template names what the exported database does not hold, so nothing was written: ${shown}.`,
        'DESCRIBE_UNKNOWN_NAME',
      );
    }
  };
}
