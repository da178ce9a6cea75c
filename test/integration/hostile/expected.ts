/**
 * The expected outcome of every hostile case, per verb: exit status and the finding or error
 * code (audit/validate give codes in --json; restore, ingest and checkout print one sentence, which
 * `message` matches). Written from what the tool SHOULD do, with the reason; where the tool does
 * not do it yet, `gap` says so and the test is declared failing (ava reports when it is fixed).
 *
 * Verbs: restore = `restore <siard> <file.sqlite>`; ingest = `ingest <siard> --root --id` (a
 * received package); audit = `audit --json` over an object holding the package (findings of that
 * package; exit 1 when one is an error); put = `put <package folder>`; validate = `validate
 * <object root> --json`; checkout = `checkout --root --id <dest>`.
 */
export type Verb = 'restore' | 'ingest' | 'put' | 'audit' | 'validate' | 'checkout';

export interface Outcome {
  exit: number;
  /** codes that must all be among the findings (audit: errors and warnings; validate: errors) */
  codes?: string[];
  message?: RegExp;
  /** the tool does not do this yet: what it does instead */
  gap?: string;
}

interface Case {
  why: string;
  outcomes: Partial<Record<Verb, Outcome>>;
}

const REFUSE_OUTSIDE = /refusing to read outside|outside the package|leads out of the package/;

/** Unreadable archive: every reader stops with one sentence; audit reports SIARD_UNREADABLE. */
function unreadable(message: RegExp, why: string, audit: string[] = ['SIARD_UNREADABLE']): Case {
  return { why, outcomes: { restore: { exit: 1, message }, ingest: { exit: 1, message }, audit: { exit: 1, codes: audit } } };
}

/**
 * A .siard that cannot be read as a ZIP at all (no central directory, an entry inflating past its
 * limit): restore and ingest could not read their input, exit 2 as the README says; audit of a
 * stored one found a problem, exit 1.
 */
function unreadableZip(message: RegExp, why: string): Case {
  return {
    why,
    outcomes: { restore: { exit: 2, message }, ingest: { exit: 2, message }, audit: { exit: 1, codes: ['SIARD_UNREADABLE'] } },
  };
}

/**
 * Ingest of a received package whose LOBs cannot all be stored: refused, nothing committed, exit 1
 * ("a received package whose LOBs are not stored must never exit 0"; --allow-missing-lobs stores
 * it as received, still exit 1).
 */
const INGEST_REFUSED: Outcome = {
  exit: 1,
  message: /LOB cells? references? (a )?files? the package folder does not hold .*nothing was stored/,
};

/** A LOB cell pointing out of the package: never read; restore stops, ingest refuses the package, audit reports. */
function escaping(auditCode: string, why: string, auditExit = 1, restore: RegExp = REFUSE_OUTSIDE): Case {
  return {
    why,
    outcomes: {
      restore: { exit: 1, message: restore },
      ingest: INGEST_REFUSED,
      audit: { exit: auditExit, codes: [auditCode] },
    },
  };
}

function zipSlip(why: string): Case {
  return {
    why,
    outcomes: {
      // Restore and ingest never extract entries by name: the unsafe entry is not touched, the data is intact.
      restore: { exit: 0 },
      ingest: { exit: 0 },
      // An archive with such an entry is a trap for any tool that unzips it: audit must say so.
      audit: { exit: 1, codes: ['SIARD_ZIP_UNSAFE_ENTRY'] },
    },
  };
}

export const EXPECTED: Record<string, Case> = {
  // ------------------------------------------------------------- SIARD packages
  'control-valid': {
    why: 'The baseline the other cases differ from: everything reads, nothing to report.',
    outcomes: { restore: { exit: 0 }, ingest: { exit: 0 }, audit: { exit: 0 } },
  },
  'zip-slip-dotdot': zipSlip('Entry "../x": would land beside the extraction folder.'),
  'zip-slip-absolute': zipSlip('Entries "/etc/x" and "/tmp/siard-ocfl-zip-slip-*": absolute names.'),
  'zip-slip-backslash': zipSlip('Entry "..\\..\\x": a Windows-style escape.'),
  'zip-slip-nul-name': {
    why: 'Entry "content/a\\0/../../x": a NUL truncates the name in C-based tools.',
    outcomes: { restore: { exit: 0 }, ingest: { exit: 0 }, audit: { exit: 1, codes: ['SIARD_ZIP_UNSAFE_ENTRY'] } },
  },
  'zip-duplicate-metadata': {
    why: 'Two header/metadata.xml entries: tools that take the first and tools that take the last read different archives.',
    outcomes: { restore: { exit: 0 }, ingest: { exit: 0 }, audit: { exit: 1, codes: ['SIARD_ZIP_UNSAFE_ENTRY'] } },
  },
  'cell-file-etc-passwd': escaping('LOB_ESCAPES', 'Cell file="../../../../etc/passwd".'),
  'cell-file-sentinel-dotdot': escaping(
    'LOB_ESCAPES',
    'Cell file="../../sentinel.txt": a real file outside the package, whose secret must never be read.',
  ),
  'cell-file-url-etc-passwd': escaping(
    'LOB_OUTSIDE',
    'Cell file="file:///etc/passwd": an absolute location is legal SIARD (LOBs kept elsewhere), so audit warns (exit 0) that it ' +
      'lies outside the object; nothing reads it.',
    0,
  ),
  'cell-file-url-sentinel': escaping('LOB_OUTSIDE', 'Cell file="file:///<sentinel>": as above, with a file that exists.', 0),
  'cell-file-percent-dotdot': escaping(
    'LOB_INVALID_LOCATION',
    'Cell file="..%2f..%2fetc%2fpasswd": an encoded separator is not a usable location (decoding it would escape).',
    1,
    /not a usable location|encodes a path separator/,
  ),
  'cell-file-percent-sentinel': escaping(
    'LOB_INVALID_LOCATION',
    'Cell file="..%2f..%2fsentinel.txt".',
    1,
    /not a usable location|encodes a path separator/,
  ),
  'db-lobfolder-escapes': escaping('LOB_ESCAPES', 'Database lobFolder "../../../../" with file="etc/passwd".'),
  'column-lobfolder-absolute-url': escaping(
    'LOB_OUTSIDE',
    'Column lobFolder "file:///etc/": absolute, so a warning as for absolute cell files.',
    0,
  ),
  'lob-symlink-to-sentinel': {
    why: 'A LOB file inside the package that is a symbolic link to the sentinel.',
    outcomes: {
      restore: { exit: 1, message: /symbolic link leads out of the package/ },
      ingest: { ...INGEST_REFUSED, message: /symbolic link leads out of the package.*nothing was stored/ },
      put: { exit: 2, message: /not a regular file/ },
    },
  },
  'metadata-xxe': unreadable(/DOCTYPE/, 'External entity (SYSTEM file:///<sentinel>) in metadata.xml: any DOCTYPE is refused.'),
  'metadata-billion-laughs': unreadable(/DOCTYPE/, 'Ten nested entity levels in metadata.xml (10^10 "a").'),
  'metadata-external-dtd': unreadable(/DOCTYPE/, 'DOCTYPE with an external DTD (a fetch or file read in lax parsers).'),
  'table-xxe': unreadable(/DOCTYPE/, 'External entity in table0.xml.'),
  'table-billion-laughs': unreadable(/DOCTYPE/, 'Billion laughs in table0.xml.'),
  'metadata-invalid-utf8': unreadable(/not valid UTF-8/, 'Bytes C3 28 FF FE in metadata.xml: an error, never silently U+FFFD.'),
  'table-invalid-utf8': unreadable(/not valid UTF-8/, 'An encoded surrogate and an overlong "/" in table0.xml.'),
  'metadata-deep-nesting': unreadable(
    /nested more than/,
    '100,000 nested elements in metadata.xml (took hours in the XML parser before the depth cap).',
  ),
  'table-deep-nesting': unreadable(
    /nested more than/,
    '100,000 nested array elements in one cell (a stack overflow before the depth cap).',
  ),
  'zip-bomb-table': unreadable(
    /characters of text without markup/,
    'A 320 KiB entry inflating to 320 MiB: one cell value of that size (ran out of memory before the cap).',
  ),
  'zip-bomb-metadata': unreadableZip(/more than the limit/, 'metadata.xml inflating to 320 MiB.'),
  'zip-bomb-lying-size': {
    why: 'An internal LOB entry declaring 10 bytes and inflating to 320 MiB of NUL.',
    outcomes: {
      restore: { exit: 2, message: /inflates to more than its declared size/ },
      // A received package is stored as it is; the lie is found where the entry is read.
      ingest: { exit: 0 },
      audit: { exit: 1, codes: ['SIARD_ENTRY'] },
    },
  },
  'lob-length-1e18': unreadable(
    /LOB length "1000000000000000000"/,
    'length="10^18": beyond exact integers, refused before anything is allocated.',
  ),
  'rows-1e18': unreadable(/too large/, '<rows>10^18</rows>.'),
  'schema-folder-escapes': unreadable(
    /missing from the archive/,
    'Schema folder "../../../..": names only an entry inside the ZIP, which does not exist.',
  ),
  'zip-truncated-central-directory': unreadableZip(
    /End of central directory|truncated/,
    'The last 40 bytes (the end of central directory record) cut off.',
  ),
  'zip-empty-file': unreadableZip(/not a zip file|End of central directory/, 'A .siard of 0 bytes.'),

  // ------------------------------------------------------------- OCFL objects
  'inventory-control-valid': {
    why: 'The baseline object.',
    outcomes: { validate: { exit: 0 }, checkout: { exit: 0 }, audit: { exit: 0 } },
  },
  'inventory-digest-not-hex': {
    why: 'Manifest and state digest "zzz...z" (128 characters).',
    outcomes: {
      validate: { exit: 1, codes: ['E025'] },
      checkout: { exit: 1, message: /has sha512 .* not z+ as the inventory records/ },
      audit: { exit: 1, codes: ['E025'] },
    },
  },
  'inventory-content-path-escapes': {
    why: 'A manifest content path "../../../../../../sentinel.txt" (with the sentinel\'s real digest).',
    outcomes: {
      validate: { exit: 1, codes: ['E099'] },
      audit: { exit: 1, codes: ['E099'] },
      checkout: { exit: 1, message: /content path .*nothing was written/ },
    },
  },
  'inventory-content-path-absolute': {
    why: 'A manifest content path "/etc/passwd".',
    outcomes: {
      validate: { exit: 1, codes: ['E100'] },
      audit: { exit: 1, codes: ['E100'] },
      checkout: { exit: 1, message: /content path .*nothing was written/ },
    },
  },
  'inventory-logical-path-escapes': {
    why: 'A logical path "../../../../escaped.txt".',
    outcomes: {
      validate: { exit: 1, codes: ['E052'] },
      checkout: { exit: 1, message: /would escape .*nothing was written/ },
      audit: { exit: 1, codes: ['E052'] },
    },
  },
  'inventory-logical-path-absolute': {
    why: 'A logical path "/tmp/escaped.txt".',
    outcomes: {
      validate: { exit: 1, codes: ['E053'] },
      checkout: { exit: 1, message: /would escape .*nothing was written/ },
      audit: { exit: 1, codes: ['E053'] },
    },
  },
  'inventory-content-directory-dotdot': {
    why: 'contentDirectory "..".',
    outcomes: {
      validate: { exit: 1, codes: ['E018'] },
      checkout: { exit: 1, message: /unusable contentDirectory/ },
      audit: { exit: 1, codes: ['OBJECT_UNREADABLE'] },
    },
  },
  'inventory-nested-100000': {
    why: 'JSON nested 100,000 deep (the version message): parsed without a stack overflow, then refused.',
    outcomes: {
      validate: { exit: 1, codes: ['E094'] },
      checkout: { exit: 1, message: /message is not a string/ },
      audit: { exit: 1, codes: ['OBJECT_UNREADABLE'] },
    },
  },
  'inventory-symlinked-content': {
    why: "An honest inventory whose content file is a symbolic link to the sentinel, with the sentinel's digest recorded.",
    outcomes: {
      validate: { exit: 1, codes: ['E090'] },
      audit: { exit: 1, codes: ['E090'] },
      checkout: { exit: 1, message: /not a regular file .*nothing was written/ },
    },
  },
  'inventory-symlinked-folder': {
    why:
      'The content folder v1/content/data is a symbolic link to the folder holding the sentinel; the inventory is honest ' +
      "(the sentinel's bytes and digest).",
    outcomes: {
      validate: { exit: 1, codes: ['E090'] },
      audit: { exit: 1, codes: ['E090'] },
      checkout: { exit: 1, message: /not a regular file .*nothing was written/ },
    },
  },
  'siard-lob-symlinked': {
    why:
      'An object holding a SIARD package whose LOB content file is a symbolic link to the sentinel; cell digest and ' +
      "inventory digest both match the sentinel's bytes.",
    outcomes: {
      validate: { exit: 1, codes: ['E090'] },
      audit: { exit: 1, codes: ['E090'] },
      checkout: { exit: 1, message: /not a regular file .*nothing was written/ },
      restore: { exit: 1 },
    },
  },
};

/**
 * Object ids handed to `put` (CLI) or to the library. OCFL allows any string as an id; extension
 * 0003 percent-encodes everything but [A-Za-z0-9_-], so "/" and ".." become %2f and %2e%2e inside
 * ONE encapsulation folder: they are stored safely, not refused. An id over 100 encoded
 * characters is cut and suffixed with its digest. NUL cannot be passed on a command line (the OS
 * forbids it in argv); through the library it is encoded %00 and stored like any character, as
 * the specification allows. A lone surrogate cannot be written as UTF-8 (the inventory could not
 * hold it losslessly), so it is refused, never replaced.
 */
export const ID_CASES: Record<string, { id: string; cli: boolean; putExit?: number; why: string }> = {
  'id-slash': { id: 'a/b/c', cli: true, putExit: 0, why: '"/" is encoded %2f: one folder, not three.' },
  'id-dotdot': { id: '..', cli: true, putExit: 0, why: '".." is encoded %2e%2e.' },
  'id-dotdot-path': { id: '../../../outside', cli: true, putExit: 0, why: 'Encoded whole: stays inside the root.' },
  'id-absolute': { id: '/etc/passwd', cli: true, putExit: 0, why: 'Encoded %2fetc%2fpasswd.' },
  'id-10000-chars': { id: 'x'.repeat(10_000), cli: true, putExit: 0, why: 'Cut to 100 characters plus "-" and the sha256 of the id.' },
  'id-empty': { id: '', cli: true, putExit: 2, why: 'An empty id names nothing.' },
  'id-nul': { id: 'nul\u0000id', cli: false, why: 'Library only: encoded %00.' },
  'id-lone-surrogate': { id: 'bad\uD800id', cli: false, why: 'Library only: refused with BAD_OBJECT_ID.' },
};
