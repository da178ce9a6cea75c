/**
 * Where a LOB cell's file lives: the three lobFolder levels of SIARD 2.x (database, column and
 * nested fields, cell `file`) resolved to one place, as pure path logic (no filesystem access),
 * so the OCFL audit can map the answer onto the logical paths of an object and the restore can
 * map it onto a folder.
 *
 * Coordinates: every answer is relative to the "package folder", the folder that holds the
 * `.siard` file (or a higher folder when `siardPath` names the .siard inside it, e.g.
 * "data/x.siard"). The `.siard` itself is treated as a folder ("extended file system where ZIP
 * files are treated as folders", SIARD 2.2 section 5.1), so a database-level `../` is the folder
 * holding the `.siard` and a missing database-level lobFolder is the root inside the ZIP.
 *
 * Rules (DILCIS Board note of 2024-08-01 and SIARD 2.2 sections 5.1, 5.6, 5.7, 6.2):
 * - a column (and none of its enclosing fields) without lobFolder: the LOB is inside the .siard;
 * - with a column/field lobFolder: outside, relative to the database-level lobFolder;
 * - the cell file is relative to the nearest lobFolder; an absolute cell file is an error in the
 *   note: we still report where it points, as `outside`, with a warning.
 *
 * Dialects in the field disagree, so the resolver returns the spec answer first and then the
 * other readings (`candidates`); a caller takes the first that exists (see `findLob`):
 * - DBPTK writes a cell file relative to the .siard-as-folder (`../x.siard_lobseg_1/...`) and
 *   lobFolders that do not add up (`content` + `lob9`);
 * - the 2.2 final spec / DILCIS note read a relative database lobFolder (`./Northwind_lobs/`)
 *   against the .siard file URI (RFC 3986), i.e. beside the .siard;
 * - the lobseg seed writes only a database-level lobFolder and no column lobFolder;
 * - Full Convert writes back-slashes (`..\x.siard_documents\content`): converted, with a warning;
 * - internal files are named from the ZIP root (`content/schema0/table0/lob5/record0.txt`) by
 *   every sample; a name relative to the table folder is tried last.
 *
 * Security: percent-decoding happens per path segment; a segment that decodes to something with
 * `/`, `\` or NUL is refused (`invalid`), `%2e%2e` counts as `..`; a path climbing above the
 * package folder is `outside` with `escapes: true`. Nothing here opens files; the opener
 * (`reader/lob-open.ts`) refuses everything that is not `internal` or `external`.
 */
import { encodeUriSegment } from './uri-path.js';

/** A location in the package: inside the .siard (ZIP entry), beside it, or elsewhere. */
export type LobTarget =
  | {
      kind: 'internal';
      /** entry name relative to the SIARD root inside the ZIP, e.g. "content/schema0/table0/lob5/record0.txt" */
      entry: string;
      /** which reading produced this target */
      rule: LobRule;
    }
  | {
      kind: 'external';
      /** POSIX path relative to the package folder, never starting with "..", e.g. "Northwind_lobseg_0/content/..." */
      path: string;
      rule: LobRule;
    }
  | {
      kind: 'outside';
      /** true when a relative path climbs above the package folder */
      escapes: boolean;
      /** for an escaping relative path: the path with its leading ".." segments, e.g. "../../etc/passwd" */
      path?: string;
      /** for an absolute location: the decoded absolute path ("/Archives/x/y.bin", "C:/x/y.bin", "//host/share/y.bin") */
      absolutePath?: string;
      /** the absolute location as a file URI (percent-encoded) */
      uri?: string;
      rule: LobRule;
    }
  | {
      kind: 'invalid';
      reason: string;
      rule: LobRule;
    };

/** Name of the reading that produced a target (for messages and for tests). */
export type LobRule =
  | 'spec' // SIARD 2.2 5.1/5.6 with the .siard as a folder, DILCIS inside/outside rule
  | 'rfc3986-siard-file' // database lobFolder relative to the .siard file URI (DILCIS note example)
  | 'archive-root' // cell file relative to the .siard-as-folder, lobFolders ignored (DBPTK)
  | 'database-folder' // cell file relative to the database lobFolder, column has none (lobseg seed)
  | 'table-folder'; // internal cell file relative to the table folder

export interface LobLocationInput {
  /** Database-level `<lobFolder>` (siardArchive), if any. */
  databaseLobFolder?: string;
  /**
   * lobFolder values from the column down to the field holding the cell (column first);
   * `undefined` entries mean "not given" (= "."). Empty array or all undefined: the column has none.
   */
  columnLobFolders?: ReadonlyArray<string | undefined>;
  /** The cell's `file` attribute. */
  file: string;
  /**
   * Path of the .siard inside the package folder (POSIX, relative), default "archive.siard".
   * Only its segments matter: they are the .siard-as-folder base.
   */
  siardPath?: string;
  /** `content/schemaI/tableJ` of the cell's table, for the table-folder reading of internal files. */
  tableFolder?: string;
  /** Producer dialect, when known ('dbptk' puts the archive-root reading first). */
  dialect?: SiardDialect;
}

export type SiardDialect = 'dbptk' | 'siard-suite' | 'full-convert' | 'siard-ocfl' | 'other';

export interface LobLocation {
  /** The first candidate: the reading this dialect is expected to use. */
  primary: LobTarget;
  /** Every distinct reading, primary first; take the first that exists. */
  candidates: LobTarget[];
  /** Tolerated irregularities (back-slashes, absolute cell file...), one sentence each. */
  warnings: string[];
}

/** Guess the producer dialect from `<producerApplication>`. */
export function dialectOf(producerApplication: string | undefined): SiardDialect {
  const p = (producerApplication ?? '').toLowerCase();
  if (p.includes('dbptk') || p.includes('database preservation toolkit')) return 'dbptk';
  if (p.includes('full convert') || p.includes('fullconvert')) return 'full-convert';
  if (p.includes('siard-ocfl')) return 'siard-ocfl';
  if (p.includes('siard') && (p.includes('suite') || p.includes('gui') || p.includes('api') || p.includes('fromdb') || p.includes('cmd')))
    return 'siard-suite';
  return 'other';
}

// ---------------------------------------------------------------------------------------------
// Reference parsing: a URI reference split into decoded segments.

/** An absolute root: "" for "/", "C:" for a drive, "//host" for a UNC/authority path. */
interface Ref {
  absolute: boolean;
  root: string;
  /** decoded segments; "." and ".." kept (removed during resolution) */
  segments: string[];
}

class RefError extends Error {}

function decodeSegment(raw: string, original: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    throw new RefError(`"${original}" has a malformed percent-encoding.`);
  }
  if (decoded !== raw && /[/\\]/.test(decoded)) {
    throw new RefError(`"${original}" encodes a path separator inside a name (%2F or %5C).`);
  }
  if (decoded.includes('\0')) throw new RefError(`"${original}" contains a NUL character.`);
  return decoded;
}

/** Parses a lobFolder or file value. Back-slashes are converted (warning added). */
function parseRef(value: string, what: string, warnings: string[]): Ref {
  let v = value.trim();
  if (v.includes('\\')) {
    warnings.push(`${what} "${value}" uses back-slashes, which are not valid in a URI; read as "/".`);
    v = v.replace(/\\/g, '/');
  }
  if (v.includes('?') || v.includes('#')) {
    // A query or fragment has no meaning for a file; keep it out of names rather than guess.
    throw new RefError(`${what} "${value}" has a query or fragment, which a file location cannot have.`);
  }
  let absolute = false;
  let root = '';
  let rest = v;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(v);
  if (scheme && scheme[1]!.length === 1) {
    // "C:/x" (a Windows path after back-slash conversion) or RFC 8089 "file:c:/x" style drive.
    absolute = true;
    root = `${scheme[1]!.toUpperCase()}:`;
    rest = v.slice(2);
  } else if (scheme) {
    if (scheme[1]!.toLowerCase() !== 'file') {
      throw new RefError(`${what} "${value}" is a "${scheme[1]}:" URI; only "file:" URIs name LOB locations.`);
    }
    absolute = true;
    rest = v.slice(scheme[0].length);
    if (rest.startsWith('//')) {
      const slash = rest.indexOf('/', 2);
      const authority = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
      rest = slash < 0 ? '' : rest.slice(slash);
      if (authority !== '' && authority.toLowerCase() !== 'localhost') root = `//${authority}`;
    }
    const drive = /^\/?([A-Za-z])(:|%3[Aa])(\/|$)/.exec(rest);
    if (drive) {
      root = `${drive[1]!.toUpperCase()}:`;
      rest = rest.slice(drive[0].length - drive[3]!.length);
    }
  } else if (v.startsWith('//')) {
    const slash = v.indexOf('/', 2);
    absolute = true;
    root = `//${slash < 0 ? v.slice(2) : v.slice(2, slash)}`;
    rest = slash < 0 ? '' : v.slice(slash);
  } else if (v.startsWith('/')) {
    absolute = true;
  }
  const segments = rest
    .split('/')
    .filter((s) => s !== '')
    .map((s) => decodeSegment(s, value));
  return { absolute, root, segments };
}

// ---------------------------------------------------------------------------------------------
// Resolution in a virtual space whose root is the package folder.

/** A resolved location: relative to the package folder (with `up` levels above it) or absolute. */
interface Loc {
  absolute: boolean;
  root: string;
  /** for relative locations: how many levels above the package folder the path starts */
  up: number;
  segments: string[];
}

const PACKAGE: Loc = { absolute: false, root: '', up: 0, segments: [] };

function applySegments(base: Loc, segments: readonly string[]): Loc {
  const out = [...base.segments];
  let up = base.up;
  for (const s of segments) {
    if (s === '.' || s === '') continue;
    if (s === '..') {
      if (out.length > 0) out.pop();
      else if (!base.absolute) up += 1;
      // an absolute path never climbs above its root (RFC 3986 5.2.4, RFC 8089 E.2.1)
      continue;
    }
    out.push(s);
  }
  return { absolute: base.absolute, root: base.root, up, segments: out };
}

/** Resolves `ref` against the folder `base` (lobFolder values always name folders, slash or not). */
function resolveRef(base: Loc, ref: Ref): Loc {
  if (ref.absolute) return applySegments({ absolute: true, root: ref.root, up: 0, segments: [] }, ref.segments);
  return applySegments(base, ref.segments);
}

function key(t: LobTarget): string {
  switch (t.kind) {
    case 'internal':
      return `i:${t.entry}`;
    case 'external':
      return `e:${t.path}`;
    case 'outside':
      return `o:${t.absolutePath ?? t.path}`;
    case 'invalid':
      return `x:${t.reason}`;
  }
}

/** A file: URI of an absolute location (a root such as "", "C:" or "//host", then segments). */
function fileUriOf(root: string, segments: readonly string[]): string {
  const enc = segments.map(encodeUriSegment);
  if (root.startsWith('//')) return `file:${root}/${enc.join('/')}`;
  if (root) return `file:///${root}/${enc.join('/')}`;
  return `file:///${enc.join('/')}`;
}

function toTarget(loc: Loc, siardSegments: readonly string[], rule: LobRule): LobTarget {
  if (loc.absolute) {
    // "/a/b", "C:/a/b" or "//host/a/b"
    const absolutePath = `${loc.root}/${loc.segments.join('/')}`;
    return { kind: 'outside', escapes: true, absolutePath, uri: fileUriOf(loc.root, loc.segments), rule };
  }
  if (loc.up > 0) {
    return { kind: 'outside', escapes: true, path: [...Array<string>(loc.up).fill('..'), ...loc.segments].join('/'), rule };
  }
  const inside = loc.segments.length > siardSegments.length && siardSegments.every((s, i) => loc.segments[i] === s);
  if (inside) return { kind: 'internal', entry: loc.segments.slice(siardSegments.length).join('/'), rule };
  if (loc.segments.length === 0) return { kind: 'invalid', reason: 'The location names the package folder itself, not a file.', rule };
  return { kind: 'external', path: loc.segments.join('/'), rule };
}

/** What is resolved once for every cell of a column (field): the lobFolders parsed and applied. */
interface ResolvedFolders {
  siardSegments: string[];
  siardFolder: Loc;
  /** Warnings of the lobFolders, after the cell file's own. */
  warnings: string[];
  /** A lobFolder that cannot be read: every cell of the column is invalid with this reason. */
  error?: string;
  columns: Ref[];
  /** Whether a database lobFolder is given. */
  db: boolean;
  dbSpec: Loc;
  dbRfc?: Loc;
  /** The column lobFolders applied to dbSpec and dbRfc (with columns only). */
  columnsSpec?: Loc;
  columnsRfc?: Loc;
  /** The table folder inside the .siard, for the table-folder reading. */
  tableBase?: Loc;
}

function resolveFolders(input: Omit<LobLocationInput, 'file'>): ResolvedFolders {
  const siardSegments = (input.siardPath ?? 'archive.siard').split('/').filter((s) => s !== '' && s !== '.');
  if (siardSegments.length === 0 || siardSegments.includes('..')) {
    throw new RangeError(`siardPath "${input.siardPath}" must be a relative path inside the package folder.`);
  }
  const siardFolder: Loc = { ...PACKAGE, segments: siardSegments };
  const siardParent: Loc = { ...PACKAGE, segments: siardSegments.slice(0, -1) };
  const warnings: string[] = [];
  const columns: Ref[] = [];
  const out: ResolvedFolders = { siardSegments, siardFolder, warnings, columns, db: false, dbSpec: siardFolder };
  let db: Ref | undefined;
  try {
    if (input.databaseLobFolder !== undefined && input.databaseLobFolder.trim() !== '') {
      db = parseRef(input.databaseLobFolder, 'Database lobFolder', warnings);
    }
    for (const c of input.columnLobFolders ?? []) {
      if (c !== undefined && c.trim() !== '') columns.push(parseRef(c, 'Column lobFolder', warnings));
    }
  } catch (e) {
    if (!(e instanceof RefError)) throw e;
    out.error = e.message;
    return out;
  }
  out.db = db !== undefined;
  if (db) out.dbSpec = resolveRef(siardFolder, db);
  if (db && !db.absolute) out.dbRfc = resolveRef(siardParent, db);
  if (columns.length > 0) {
    const withColumns = (base: Loc): Loc => columns.reduce<Loc>((b, c) => resolveRef(b, c), base);
    out.columnsSpec = withColumns(out.dbSpec);
    if (out.dbRfc) out.columnsRfc = withColumns(out.dbRfc);
  }
  if (input.tableFolder)
    out.tableBase = applySegments(
      siardFolder,
      input.tableFolder.split('/').filter((s) => s !== ''),
    );
  return out;
}

/**
 * The resolver of every cell of one column (or field): the input but the cell's file, its
 * lobFolders parsed and applied once (a table of 10,000 LOB cells resolved them 10,000 times).
 * `resolve(file)` answers as resolveLobLocation({ ...input, file }) does.
 */
export function lobLocationResolver(input: Omit<LobLocationInput, 'file'>): (file: string) => LobLocation {
  const folders = resolveFolders(input);
  return (file) => resolveWith(folders, input.dialect, file);
}

function resolveWith(folders: ResolvedFolders, dialect: SiardDialect | undefined, file: string): LobLocation {
  const { siardSegments, siardFolder, columns, dbSpec, dbRfc } = folders;
  const warnings: string[] = [];
  const invalid = (reason: string): LobLocation => {
    const t: LobTarget = { kind: 'invalid', reason, rule: 'spec' };
    return { primary: t, candidates: [t], warnings };
  };
  if (file.trim() === '') return invalid('The cell file attribute is empty.');
  let cell: Ref;
  try {
    cell = parseRef(file, 'Cell file', warnings);
  } catch (e) {
    if (e instanceof RefError) return invalid(e.message);
    throw e;
  }
  warnings.push(...folders.warnings);
  if (folders.error !== undefined) return invalid(folders.error);
  if (cell.absolute) warnings.push(`Cell file "${file}" is absolute; the DILCIS note allows only relative cell files.`);
  if (folders.db && columns.some((c) => c.absolute)) {
    warnings.push('A column lobFolder is absolute although a database lobFolder is given; the column value is used.');
  }

  const targets: LobTarget[] = [];
  const add = (loc: Loc, rule: LobRule) => targets.push(toTarget(loc, siardSegments, rule));

  if (dialect === 'dbptk') add(resolveRef(siardFolder, cell), 'archive-root');

  if (folders.columnsSpec) {
    // Outside the .siard (DILCIS): the spec reading first, unless it lands inside the ZIP while the
    // RFC 3986 reading of a relative database lobFolder lands beside it (2.2 final spec, chapter 7).
    const spec = resolveRef(folders.columnsSpec, cell);
    const rfc = folders.columnsRfc ? resolveRef(folders.columnsRfc, cell) : undefined;
    const specTarget = toTarget(spec, siardSegments, 'spec');
    const rfcTarget = rfc ? toTarget(rfc, siardSegments, 'rfc3986-siard-file') : undefined;
    if (specTarget.kind === 'internal' && rfcTarget?.kind === 'external') targets.push(rfcTarget, specTarget);
    else targets.push(specTarget, ...(rfcTarget ? [rfcTarget] : []));
    add(resolveRef(siardFolder, cell), 'archive-root');
  } else {
    // Inside the .siard (DILCIS), named from the ZIP root; then the database lobFolder alone.
    add(resolveRef(siardFolder, cell), 'spec');
    if (folders.db) add(resolveRef(dbSpec, cell), 'database-folder');
    if (dbRfc) add(resolveRef(dbRfc, cell), 'database-folder');
  }
  if (folders.tableBase && !cell.absolute) add(resolveRef(folders.tableBase, cell), 'table-folder');

  const seen = new Set<string>();
  const candidates = targets.filter((t) => {
    const k = key(t);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  return { primary: candidates[0]!, candidates, warnings };
}

/**
 * Resolves a LOB cell's file through the database, column (and field) lobFolders.
 * Pure: the same input always gives the same answer, and no file is touched.
 */
export function resolveLobLocation(input: LobLocationInput): LobLocation {
  return lobLocationResolver(input)(input.file);
}

// ---------------------------------------------------------------------------------------------
// Split LOBs: `.0` ... `.z` over lobseg folders, `_part001` ... over siard22 `seg_` folders.

/** One part of a LOB as stored: where it lies (same kind as the target it was found for). */
export type LobPart = Extract<LobTarget, { kind: 'internal' } | { kind: 'external' }>;

export interface FoundLob {
  /** the candidate that matched */
  target: LobPart;
  /** the files holding the bytes, in order: one for an unsplit LOB */
  parts: LobPart[];
  /** 'whole', 'lobseg' (.0 ... .z) or 'siard22' (_part001 ...) */
  split: 'whole' | 'lobseg' | 'siard22';
}

/** Existence test over package paths: (kind, path) -> exists. May be sync or async. */
export type LobExists = (part: LobPart) => boolean | Promise<boolean>;

function withPath(t: LobPart, path: string): LobPart {
  return t.kind === 'internal' ? { ...t, entry: path } : { ...t, path };
}
function pathOf(t: LobPart): string {
  return t.kind === 'internal' ? t.entry : t.path;
}

/** The segment folder component of a path: `X_lobseg_7` or `seg_7`, and its number. */
function segmentFolder(path: string): { index: number; prefix: string; number: number; width: number } | undefined {
  const parts = path.split('/');
  for (let i = parts.length - 2; i >= 0; i--) {
    const m = /^(.*_lobseg_|seg_?)(\d+)$/.exec(parts[i]!);
    if (m) return { index: i, prefix: m[1]!, number: Number(m[2]), width: m[2]!.length };
  }
  return undefined;
}

function inSegment(path: string, seg: NonNullable<ReturnType<typeof segmentFolder>>, n: number, name: string): string {
  const parts = path.split('/');
  const digits = String(n);
  parts[seg.index] = seg.prefix + (seg.width > 1 && digits.length < seg.width ? digits.padStart(seg.width, '0') : digits);
  parts[parts.length - 1] = name;
  return parts.join('/');
}

/** Upper bound on the parts of one LOB, so a hostile tree cannot keep us looping. */
const MAX_PARTS = 100_000;

/**
 * Finds the bytes of a LOB: the first candidate that exists whole, else the first that exists as
 * split parts. Lobseg: `name.0` in the cell's folder, then `.1`, `.2` ... and finally `.z`, each in
 * the same or the next segment folder. Siard22: `name_part001`, `_part002` ... the same way, to the
 * last one found. Returns undefined when nothing is there.
 */
export async function findLob(location: LobLocation, exists: LobExists): Promise<FoundLob | undefined> {
  const usable = location.candidates.filter((t): t is LobPart => t.kind === 'internal' || t.kind === 'external');
  for (const t of usable) if (await exists(t)) return { target: t, parts: [t], split: 'whole' };
  for (const t of usable) {
    const split = await findSplit(t, exists);
    if (split) return split;
  }
  return undefined;
}

async function findSplit(t: LobPart, exists: LobExists): Promise<FoundLob | undefined> {
  const path = pathOf(t);
  const name = path.slice(path.lastIndexOf('/') + 1);
  const seg = segmentFolder(path);
  const dir = path.slice(0, path.length - name.length);
  // Lobseg: .0 beside the unsplit name.
  const first = withPath(t, `${dir}${name}.0`);
  if (await exists(first)) {
    const parts: LobPart[] = [first];
    if (!seg) return undefined; // .0 with no segment folders to continue in: incomplete
    let folder = seg.number;
    for (let k = 1; k < MAX_PARTS; k++) {
      let found = false;
      for (const f of [folder, folder + 1]) {
        for (const suffix of [String(k), 'z']) {
          const p = withPath(t, inSegment(path, seg, f, `${name}.${suffix}`));
          if (await exists(p)) {
            parts.push(p);
            folder = f;
            found = true;
            if (suffix === 'z') return { target: t, parts, split: 'lobseg' };
            break;
          }
        }
        if (found) break;
      }
      if (!found) return undefined; // a gap or a missing .z: the split LOB is incomplete
    }
    return undefined;
  }
  // Siard22: _part001 beside the unsplit name, further parts in the same or the next seg folder.
  const part = (k: number) => `${name}_part${String(k).padStart(3, '0')}`;
  const p1 = withPath(t, `${dir}${part(1)}`);
  if (!(await exists(p1))) return undefined;
  const parts: LobPart[] = [p1];
  let folder = seg?.number ?? 0;
  for (let k = 2; k < MAX_PARTS; k++) {
    let found = false;
    for (const f of seg ? [folder, folder + 1] : [folder]) {
      const p = withPath(t, seg ? inSegment(path, seg, f, part(k)) : `${dir}${part(k)}`);
      if (await exists(p)) {
        parts.push(p);
        folder = f;
        found = true;
        break;
      }
    }
    if (!found) break;
  }
  return { target: t, parts, split: 'siard22' };
}

/** Human wording of a target for messages. */
export function describeLobTarget(t: LobTarget): string {
  switch (t.kind) {
    case 'internal':
      return `inside the .siard at ${t.entry}`;
    case 'external':
      return t.path;
    case 'outside':
      return t.absolutePath ? `${t.uri} (outside the package)` : `${t.path} (above the package folder)`;
    case 'invalid':
      return `an invalid location: ${t.reason}`;
  }
}
