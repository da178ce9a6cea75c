/**
 * Applies a describe template to a metadata.xml as text: only the content of the <description>
 * (and database-level archiver ... dataOriginTimespan) elements named changes, an absent one is
 * inserted where metadata.xsd puts it, "" removes an optional one. Every other byte stays as it
 * was. The result is then proved: parsed back, it differs from the input only in the texts asked
 * for, and it is valid against the official metadata.xsd (when the input was).
 *
 * Text is written with SIARD's escapes (escapeSiardText): markup characters as entities, characters
 * XML cannot carry and '\' as \u00XX, so any string a JSON file holds survives, but a lone surrogate,
 * which UTF-8 cannot encode, is refused.
 */
import { SiardOcflError, UsageError } from '../../errors.js';
import { loadLibxml2, validateDocument } from '../../siard/check/xsd-validator.js';
import { parseSiardMetadata } from '../../siard/reader/metadata.js';
import { officialMetadataXsd } from '../../siard/writer.js';
import { escapeSiardText } from '../../siard/xml-text.js';
import {
  DATABASE_BEFORE,
  DATABASE_FIELDS,
  itemsOf,
  MANDATORY_DATABASE_FIELDS,
  ROOT_COLLECTIONS,
  templateOf,
  textOf,
  type Collection,
  type DescribedItem,
  type DescribeTemplate,
  type ItemKind,
  type Text,
} from './template.js';
import { checkTemplateShape } from './template-shape.js';
import { childNamed, placedTree, type PlacedElement } from './xml-positions.js';

interface Edit {
  start: number;
  end: number;
  text: string;
}

/** One text set or cleared: where (a readable path), which field, and the value asked for. */
export interface DescribedChange {
  path: string;
  field: string;
  value: string;
}

class EditPlan {
  readonly edits: Edit[] = [];
  readonly changes: DescribedChange[] = [];
  readonly unknown: string[] = [];
  constructor(readonly xml: string) {}

  /** Sets the text of `parent`'s child `field`, which follows the elements `before`. */
  set(parent: PlacedElement, field: string, before: readonly string[], value: Text | undefined, path: string, mandatory = false): void {
    if (value === undefined || value === null) return;
    const existing = childNamed(parent, field);
    const clear = value === '' && !mandatory;
    if (clear ? !textOf(existing) : textOf(existing) === value) return;
    this.changes.push({ path, field, value });
    let escaped: string;
    try {
      escaped = escapeSiardText(value);
    } catch (err) {
      throw new UsageError(`${path}: ${field}: ${(err as Error).message}`, 'DESCRIBE_TEXT');
    }
    const tag = (existing ?? parent).prefix ? `${(existing ?? parent).prefix}:${field}` : field;
    if (existing && clear) this.edits.push({ start: this.lineStart(existing.start), end: existing.end, text: '' });
    else if (existing && !existing.selfClosing) this.edits.push({ start: existing.contentStart, end: existing.contentEnd, text: escaped });
    else if (existing) this.edits.push({ start: existing.start, end: existing.end, text: `<${tag}>${escaped}</${tag}>` });
    else {
      const after = parent.children.filter((c) => before.includes(c.name)).pop();
      const at = after ? after.end : parent.contentStart;
      const indent = after ? this.xml.slice(this.lineStart(after.start), after.start) : '';
      this.edits.push({
        start: at,
        end: at,
        text: `${indent.startsWith('\n') || !after ? indent : '\n' + indent}<${tag}>${escaped}</${tag}>`,
      });
    }
  }

  /** The start of the blank run (newline included) before `at`, or `at` when text precedes it on its line. */
  private lineStart(at: number): number {
    let s = at;
    while (s > 0 && (this.xml[s - 1] === ' ' || this.xml[s - 1] === '\t')) s--;
    if (s > 0 && this.xml[s - 1] === '\n') s--;
    if (s > 0 && this.xml[s - 1] === '\r') s--;
    return s;
  }

  result(): string {
    let out = this.xml;
    // From the end; of insertions at one place, the last planned first, so they read in the order planned.
    const order = this.edits.map((e, i) => ({ e, i })).sort((a, b) => b.e.start - a.e.start || b.i - a.i);
    for (const { e } of order) out = out.slice(0, e.start) + e.text + out.slice(e.end);
    return out;
  }
}

function describeItems(
  plan: EditPlan,
  parent: PlacedElement,
  collections: Readonly<Record<string, Collection>>,
  given: DescribedItem,
  path: string,
): void {
  for (const [name, c] of Object.entries(collections)) {
    const wanted = given[name] as Record<string, DescribedItem> | undefined | null;
    if (!wanted) continue;
    const present = new Map<string, PlacedElement>();
    for (const [key, el] of itemsOf(parent, c)) if (!present.has(key)) present.set(key, el);
    for (const [key, item] of Object.entries(wanted)) {
      const el = present.get(key);
      const itemPath = `${path}${name}.${JSON.stringify(key)}`;
      if (!el) plan.unknown.push(`${itemPath} (no ${c.element} of that name)`);
      else if (item) describeItem(plan, el, c.kind, item, itemPath);
    }
  }
}

function describeItem(plan: EditPlan, el: PlacedElement, kind: ItemKind, item: DescribedItem, path: string): void {
  plan.set(el, 'description', kind.before, item.description, path);
  describeItems(plan, el, kind.collections, item, `${path}.`);
}

/** The edits a template asks of a metadata.xml; unknown names are listed, not thrown. */
function planOf(xml: string, template: DescribeTemplate, what: string): EditPlan {
  const plan = new EditPlan(xml);
  const root = placedTree(xml, what);
  for (const f of DATABASE_FIELDS)
    plan.set(root, f, DATABASE_BEFORE[f] ?? [], template.database?.[f], 'database', MANDATORY_DATABASE_FIELDS.has(f));
  describeItems(plan, root, ROOT_COLLECTIONS, template as DescribedItem, '');
  return plan;
}

export interface DescribedMetadata {
  xml: string;
  changes: DescribedChange[];
}

/**
 * metadata.xml with the template's texts; throws a UsageError (exit 2) naming every item the
 * template names that `xml` does not hold, before anything is written.
 */
export async function describeMetadata(xml: string, templateArg: unknown, what: string): Promise<DescribedMetadata> {
  const template = checkTemplateShape(templateArg);
  const bom = xml.charCodeAt(0) === 0xfeff ? '\ufeff' : '';
  const body = xml.slice(bom.length);
  const plan = planOf(body, template, what);
  if (plan.unknown.length > 0) {
    const shown = plan.unknown.slice(0, 5).join('; ') + (plan.unknown.length > 5 ? `; and ${plan.unknown.length - 5} more` : '');
    throw new UsageError(`The template names what ${what} does not hold, so nothing was written: ${shown}.`, 'DESCRIBE_UNKNOWN_NAME');
  }
  if (plan.changes.length === 0) return { xml, changes: [] };
  const described = plan.result();
  await proveDescribed(body, described, template, what);
  return { xml: bom + described, changes: plan.changes };
}

const DESCRIBED_FIELDS = new Set<string>(['description', ...DATABASE_FIELDS]);

/** The model without the texts describe may change. */
function undescribed(xml: string, what: string): string {
  return JSON.stringify(parseSiardMetadata(xml, what).archive, (k, v: unknown) => (DESCRIBED_FIELDS.has(k) ? undefined : v));
}

/** Every text the template gives, as templateOf should read it back. */
function expectedOf(given: unknown, read: unknown, path: string, out: string[]): void {
  if (given === null || given === undefined) return;
  if (typeof given === 'string') {
    const mandatory = MANDATORY_DATABASE_FIELDS.has(path.slice(path.lastIndexOf('.') + 1)) && path.startsWith('database.');
    const want = given === '' && !mandatory ? null : given;
    if (read !== want) out.push(path);
    return;
  }
  for (const [k, v] of Object.entries(given as Record<string, unknown>))
    expectedOf(v, (read as Record<string, unknown> | undefined)?.[k], `${path}${path ? '.' : ''}${k}`, out);
}

async function proveDescribed(before: string, after: string, template: DescribeTemplate, what: string): Promise<void> {
  const wrong: string[] = [];
  expectedOf(template, templateOf(placedTree(after, what)), '', wrong);
  if (wrong.length > 0 || undescribed(before, what) !== undescribed(after, what)) {
    throw new SiardOcflError(
      `${what}: describing would change more than the texts asked for` +
        `${wrong.length > 0 ? ` (${wrong.slice(0, 3).join(', ')} read back otherwise)` : ''}; nothing was written.`,
      { code: 'DESCRIBE_METADATA' },
    );
  }
  const version = parseSiardMetadata(after, what).siardVersion;
  if (version !== '2.2') return;
  await loadLibxml2();
  const errors = validateDocument(Buffer.from(after, 'utf8'), officialMetadataXsd());
  if (errors.length > 0 && validateDocument(Buffer.from(before, 'utf8'), officialMetadataXsd()).length === 0) {
    throw new SiardOcflError(
      `${what}: the described metadata.xml would not be valid against metadata.xsd (${errors[0]}); nothing was written.`,
      {
        code: 'DESCRIBE_XSD',
      },
    );
  }
}
