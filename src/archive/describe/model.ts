/**
 * A describe template applied to the archive model, for `export` and `ingest --describe`: the
 * writer calls it on the archive before it writes metadata.xml (and escapes the texts as it writes
 * every text). The same names and the same rules as on a metadata.xml (apply.ts): a field left out
 * or null is unchanged, "" clears it (dataOwner and dataOriginTimespan: an empty text), and a name
 * the archive does not hold is a UsageError naming it; the export is then aborted, so nothing is
 * visible.
 */
import { UsageError } from '../../errors.js';
import type { SiardArchive } from '../../siard/model.js';
import { checkTemplateShape } from './template-shape.js';
import { DATABASE_FIELDS, MANDATORY_DATABASE_FIELDS, type DescribedItem, type Text } from './template.js';

interface Describable {
  description?: string;
}

type Items = Record<string, DescribedItem> | null | undefined;

function setText(target: Record<string, unknown>, field: string, value: Text | undefined, mandatory = false): void {
  if (value === undefined || value === null) return;
  if (value === '' && !mandatory) delete target[field];
  else target[field] = value;
}

/** Applies `items` to `list` (matched by `key`), each item then to its sub-collections by `sub`. */
function each<T extends Describable>(
  list: readonly T[] | undefined,
  items: Items,
  path: string,
  unknown: string[],
  sub?: (el: T, item: DescribedItem, path: string) => void,
  key: (el: T) => string = (el) => (el as unknown as { name: string }).name,
): void {
  if (!items) return;
  for (const [name, item] of Object.entries(items)) {
    const el = list?.find((x) => key(x) === name);
    const at = `${path}.${JSON.stringify(name)}`;
    if (!el) unknown.push(at);
    else if (item) {
      setText(el as Record<string, unknown>, 'description', item.description);
      sub?.(el, item, at);
    }
  }
}

/** The function the writer calls on the archive (SiardExportOptions.describe). */
export function describeArchiveModel(templateArg: unknown): (archive: SiardArchive) => void {
  const template = checkTemplateShape(templateArg);
  return (archive) => {
    for (const f of DATABASE_FIELDS)
      setText(archive as unknown as Record<string, unknown>, f, template.database?.[f], MANDATORY_DATABASE_FIELDS.has(f));
    const unknown: string[] = [];
    const get = (item: DescribedItem, name: string) => item[name] as Items;
    each(archive.schemas, template.schemas, 'schemas', unknown, (s, si, sp) => {
      each(s.tables, get(si, 'tables'), `${sp}.tables`, unknown, (t, ti, tp) => {
        each(t.columns, get(ti, 'columns'), `${tp}.columns`, unknown);
        each(t.primaryKey ? [t.primaryKey] : [], get(ti, 'primaryKey'), `${tp}.primaryKey`, unknown);
        each(t.foreignKeys, get(ti, 'foreignKeys'), `${tp}.foreignKeys`, unknown);
        each(t.candidateKeys, get(ti, 'candidateKeys'), `${tp}.candidateKeys`, unknown);
        each(t.checkConstraints, get(ti, 'checkConstraints'), `${tp}.checkConstraints`, unknown);
        each(t.triggers, get(ti, 'triggers'), `${tp}.triggers`, unknown);
      });
      each(s.views, get(si, 'views'), `${sp}.views`, unknown, (v, vi, vp) => each(v.columns, get(vi, 'columns'), `${vp}.columns`, unknown));
      each(s.routines, get(si, 'routines'), `${sp}.routines`, unknown, undefined, (r) => r.specificName);
    });
    each(archive.users, template.users, 'users', unknown);
    each(archive.roles, template.roles, 'roles', unknown);
    if (unknown.length > 0) {
      const shown = unknown.slice(0, 5).join('; ') + (unknown.length > 5 ? `; and ${unknown.length - 5} more` : '');
      throw new UsageError(
        `The --describe template names what the exported database does not hold, so nothing was written: ${shown}.`,
        'DESCRIBE_UNKNOWN_NAME',
      );
    }
  };
}
