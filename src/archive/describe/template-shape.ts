/**
 * A describe template read from JSON, checked for shape before it touches anything: an unknown
 * key (a misspelt "descripton", a "tabels") would otherwise be silently ignored.
 */
import { UsageError } from '../../errors.js';
import { escapeSiardText } from '../../siard/xml-text.js';
import { DATABASE_FIELDS, MANDATORY_DATABASE_FIELDS, ROOT_COLLECTIONS, type Collection, type DescribeTemplate } from './template.js';

function fail(path: string, message: string): never {
  throw new UsageError(`The template's ${path || 'top level'} ${message}; nothing was written.`, 'DESCRIBE_TEMPLATE');
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A text, checked here to be writable (no lone surrogate, no U+FFFE), so that an export refuses it before it starts. */
function checkText(v: unknown, path: string): void {
  if (v !== null && v !== undefined && typeof v !== 'string') fail(path, 'must be a string, "" (to clear it) or null (unchanged)');
  if (typeof v !== 'string') return;
  try {
    escapeSiardText(v);
  } catch (err) {
    fail(path, `cannot be written: ${(err as Error).message.replace(/^The text /, 'it ').replace(/\.$/, '')}`);
  }
}

function checkCollections(
  v: Record<string, unknown>,
  collections: Readonly<Record<string, Collection>>,
  path: string,
  own: string[],
): void {
  for (const [key, value] of Object.entries(v)) {
    const at = `${path}${path ? '.' : ''}${key}`;
    if (own.includes(key)) continue;
    const c = collections[key];
    if (!c) fail(at, `is not a describable part here (expected ${[...own, ...Object.keys(collections)].join(', ')})`);
    if (value === null) continue;
    if (!isObject(value)) fail(at, `must be an object of ${c.element} names`);
    for (const [name, item] of Object.entries(value)) {
      const itemAt = `${at}.${JSON.stringify(name)}`;
      if (item === null) continue;
      if (!isObject(item)) fail(itemAt, 'must be an object');
      checkText(item['description'], `${itemAt}.description`);
      checkCollections(item, c.kind.collections, itemAt, ['description']);
    }
  }
}

export function checkTemplateShape(v: unknown): DescribeTemplate {
  if (!isObject(v)) fail('', 'must be a JSON object');
  const database = v['database'];
  if (database !== undefined && database !== null) {
    if (!isObject(database)) fail('database', 'must be an object');
    for (const [key, value] of Object.entries(database)) {
      if (!(DATABASE_FIELDS as readonly string[]).includes(key))
        fail(`database.${key}`, `is not a database text (expected ${DATABASE_FIELDS.join(', ')})`);
      checkText(value, `database.${key}`);
      if (value === '' && MANDATORY_DATABASE_FIELDS.has(key))
        fail(`database.${key}`, 'is mandatory in SIARD (at least one character in metadata.xsd), so it cannot be cleared');
    }
  }
  checkCollections(v, ROOT_COLLECTIONS, '', ['database']);
  return v as DescribeTemplate;
}
