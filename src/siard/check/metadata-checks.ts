/**
 * metadata.xml: against the official SIARD 2.2 metadata.xsd (M_5.0-1), each schema error also
 * under the level it belongs to (M_5.1-1 database ... M_5.19-1 privilege, found by walking up from
 * the element libxml2 names), the optional levels applicable where present; identifiers
 * (G_3.5-1, G_3.5-3), its encoding (G_3.3-1), lobFolder URIs (G_3.4-1, G_3.4-2) and foreign keys
 * naming tables and columns that exist (M_5.9-1, M_5.10-1).
 */
import type { XmlDocument, XmlElement } from 'libxml2-wasm';
import type { SiardArchive } from '../model.js';
import type { CheckReport, Where } from './report.js';
import { libxml2, parseOptions, validateDocument } from './xsd-validator.js';

const ENTRY = 'header/metadata.xml';

/** the element whose errors and presence belong to each level */
const LEVEL: Record<string, string> = {
  siardArchive: 'M_5.1-1',
  schema: 'M_5.2-1',
  type: 'M_5.3-1',
  attribute: 'M_5.4-1',
  table: 'M_5.5-1',
  column: 'M_5.6-1',
  field: 'M_5.7-1',
  primaryKey: 'M_5.8-1',
  foreignKey: 'M_5.9-1',
  reference: 'M_5.10-1',
  candidateKey: 'M_5.11-1',
  checkConstraint: 'M_5.12-1',
  trigger: 'M_5.13-1',
  view: 'M_5.14-1',
  routine: 'M_5.15-1',
  parameter: 'M_5.16-1',
  user: 'M_5.17-1',
  role: 'M_5.18-1',
  privilege: 'M_5.19-1',
};

/** `column` is a level only as a table's or view's column definition (not inside a key). */
function levelOf(el: XmlElement | null): string {
  for (let e = el; e; e = e.parent) {
    const id = LEVEL[e.name];
    if (id && (e.name !== 'column' || e.parent?.name === 'columns')) return id;
  }
  return 'M_5.1-1';
}

function elementAt(doc: XmlDocument, name: string, line: number): XmlElement | null {
  if (!/^[A-Za-z_][\w.-]*$/.test(name)) return null;
  const nodes = doc.find(`//*[local-name()='${name}']`);
  const el = nodes.find((n) => n.line === line) ?? nodes.find((n) => Math.abs(n.line - line) <= 1);
  return el instanceof libxml2().XmlElement ? el : null;
}

function levelsPresent(doc: XmlDocument, report: CheckReport): void {
  report.applies('M_5.1-1', 'M_5.2-1', 'M_5.5-1', 'M_5.6-1');
  for (const [name, id] of Object.entries(LEVEL)) {
    if (doc.get(`//*[local-name()='${name}']`)) report.applies(id);
  }
}

/** `schema` names the XSD in messages (the audit validates a 2.1 archive against the metadata.xsd it carries). */
export function checkMetadataSchema(xml: Buffer, xsd: Buffer, report: CheckReport, schema = 'the official SIARD 2.2 metadata.xsd'): void {
  report.applies('M_5.0-1', 'G_3.1-1');
  const errors = validateDocument(xml, xsd);
  let doc: XmlDocument | undefined;
  try {
    doc = libxml2().XmlDocument.fromBuffer(xml, { option: parseOptions() });
  } catch {
    doc = undefined;
  }
  try {
    if (doc) levelsPresent(doc, report);
    for (const e of errors) {
      const message = `metadata.xml is not valid against ${schema}: ${e}`;
      report.fail('M_5.0-1', message, { entry: ENTRY });
      if (e.startsWith('not well-formed')) report.fail('G_3.1-1', message, { entry: ENTRY });
      const m = /^line (\d+): Element '(?:\{[^}]*\})?([^']+)'/.exec(e);
      if (doc && m) report.fail(levelOf(elementAt(doc, m[2]!, Number(m[1]))), message, { entry: ENTRY });
    }
  } finally {
    doc?.dispose();
  }
}

/** The names that place an element of metadata.xml: its schema, table and column (their <name>s). */
function placeOf(el: XmlElement): { path: string; table?: string; column?: string } {
  const name = (e: XmlElement) => {
    for (let c = e.firstChild; c; c = c.next) if (c instanceof libxml2().XmlElement && c.name === 'name') return c.content;
    return undefined;
  };
  const names: string[] = [];
  let schema: string | undefined;
  let table: string | undefined;
  let column: string | undefined;
  for (let e = el.parent; e; e = e.parent) {
    const n = name(e);
    if (e.name === 'schema') schema = n;
    else if (e.name === 'table') table = n;
    else if (e.name === 'column' && e.parent?.name === 'columns') column = n;
    names.unshift(n !== undefined && e !== el.parent ? `${e.name} ${n}` : e.name);
  }
  return {
    path: [...names, el.name].join(' / '),
    ...(schema !== undefined && table !== undefined ? { table: `${schema}.${table}` } : {}),
    ...(column !== undefined ? { column } : {}),
  };
}

/**
 * G_3.3-4 in metadata.xml: the text of its elements (names, descriptions, types, default values ...)
 * holds no run of spaces written raw, as in the tables' character values (docs/check.md says why).
 * Only elements holding text alone are read, and not those holding white space alone: the white
 * space that lays out elements (an empty <users> on two lines) is no value.
 */
export function checkMetadataText(xml: Buffer, report: CheckReport): void {
  report.applies('G_3.3-4');
  let doc: XmlDocument;
  try {
    doc = libxml2().XmlDocument.fromBuffer(xml, { option: parseOptions() });
  } catch {
    return; // not well-formed: said under M_5.0-1 and G_3.1-1
  }
  try {
    let listed = 0;
    for (const node of doc.find('//*[not(*)][normalize-space(.) != ""][contains(., "  ")]')) {
      if (!(node instanceof libxml2().XmlElement) || listed++ >= 100) continue;
      const { path, ...where } = placeOf(node);
      report.fail(
        'G_3.3-4',
        `metadata.xml's ${path} holds spaces in a row that are not escaped (every space after the first is to be written \\u0020).`,
        {
          entry: ENTRY,
          ...where,
        },
      );
    }
  } finally {
    doc.dispose();
  }
}

/** The XML declaration's encoding (UTF-8 when none is declared). */
export function checkEncoding(head: Buffer, entry: string, report: CheckReport): void {
  report.applies('G_3.3-1');
  const decl = /^\s*<\?xml[^>]*encoding\s*=\s*["']([^"']+)["']/.exec(head.subarray(0, 200).toString('latin1'));
  const enc = decl?.[1]?.toUpperCase();
  if (enc && !['UTF-8', 'UTF8', 'UTF-16', 'UTF16'].includes(enc)) {
    report.fail('G_3.3-1', `${entry} is encoded in ${decl![1]}, not in a Unicode encoding (UTF-8 or UTF-16).`, { entry });
  }
}

function checkName(name: string, what: string, report: CheckReport): void {
  if (name.length >= 2 && name.startsWith('"') && name.endsWith('"')) {
    report.fail('G_3.5-3', `The ${what} name ${name} is stored with its quotation marks; store delimited identifiers without them.`, {
      entry: ENTRY,
    });
  }
}

export function checkIdentifiers(archive: SiardArchive, report: CheckReport): void {
  report.applies('G_3.5-1', 'G_3.5-3');
  for (const s of archive.schemas) {
    checkName(s.name, 'schema', report);
    for (const t of s.tables) {
      checkName(t.name, 'table', report);
      for (const c of t.columns) checkName(c.name, `column ${t.name}.`, report);
    }
  }
}

/** A file URI (absolute `file:` or relative reference) as RFC 8089 / RFC 3986 allow, in URL-encoded ASCII. */
export function checkFileUri(value: string, what: string, report: CheckReport, where: Where): void {
  report.applies('G_3.4-1', 'G_3.4-2');
  if (value.includes('\\')) {
    report.fail('G_3.4-1', `${what} "${value}" holds a back-slash: a file URI separates folders with "/" (RFC 8089).`, where);
  } else if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(value) && !/^file:/i.test(value)) {
    report.fail('G_3.4-1', `${what} "${value}" is not a file URI.`, where);
  }
  if (/[^\x21-\x7e]/.test(value) || /%(?![0-9A-Fa-f]{2})/.test(value)) {
    report.fail('G_3.4-2', `${what} "${value}" is not URL-encoded ASCII (spaces and non-ASCII characters must be %-encoded).`, where);
  }
}

export function checkLobFolders(archive: SiardArchive, report: CheckReport): void {
  if (archive.lobFolder !== undefined) checkFileUri(archive.lobFolder, 'The database-level lobFolder', report, { entry: ENTRY });
  for (const s of archive.schemas) {
    for (const t of s.tables) {
      for (const c of t.columns) {
        if (c.lobFolder !== undefined) {
          checkFileUri(c.lobFolder, `The lobFolder of column ${s.name}.${t.name}.${c.name}`, report, {
            entry: ENTRY,
            table: `${s.name}.${t.name}`,
            column: c.name,
          });
        }
      }
    }
  }
}

/** Foreign keys name a table that exists and columns of both tables, as many on each side. */
export function checkForeignKeyTargets(archive: SiardArchive, report: CheckReport): void {
  for (const s of archive.schemas) {
    for (const t of s.tables) {
      for (const fk of t.foreignKeys ?? []) {
        const where = { entry: ENTRY, table: `${s.name}.${t.name}` };
        report.applies('M_5.9-1', 'M_5.10-1');
        const target = archive.schemas
          .find((x) => x.name === (fk.referencedSchema ?? s.name))
          ?.tables.find((x) => x.name === fk.referencedTable);
        if (!target) {
          report.fail(
            'M_5.9-1',
            `Foreign key ${fk.name} of ${where.table} references table ${fk.referencedSchema ?? s.name}.${fk.referencedTable}, ` +
              'which metadata.xml does not describe.',
            where,
          );
          continue;
        }
        for (const ref of fk.references) {
          if (!t.columns.some((c) => c.name === ref.column))
            report.fail(
              'M_5.10-1',
              `Foreign key ${fk.name} of ${where.table} names column ${ref.column}, which the table does not have.`,
              where,
            );
          if (!target.columns.some((c) => c.name === ref.referenced)) {
            report.fail(
              'M_5.10-1',
              `Foreign key ${fk.name} of ${where.table} references column ${ref.referenced}, which ${target.name} does not have.`,
              where,
            );
          }
        }
      }
    }
  }
}
