/**
 * Checks a METS index against the files it describes and the cells of the archive:
 * - the parent: its SIARD file present with the listed size and checksum; every child METS it
 *   lists present with the listed size and checksum; its mptrs and child file IDs matching;
 * - each child: OBJID equal to the parent's ID for it, its mptr naming the parent's OBJID, every
 *   listed LOB file present with the listed SIZE and CHECKSUM;
 * - coverage: every file in a segment folder (other than its mets.xml) and every LOB file a cell
 *   references is listed by a child METS, and every listed file is referenced by a cell.
 *
 * Pure: the caller answers questions about files (size, digest) and gives the file lists, so
 * the same check runs on a folder, a checked-out object or an OCFL inventory (digests from the
 * just re-verified fixity block). Paths in findings are relative to the root the caller's paths
 * use; FLocat hrefs are resolved against the folder of the METS file that holds them.
 */
import path from 'node:path/posix';
import { parseMets, type MetsInput } from './reader.js';
import { CHILD_IP_USE, isMetsChecksumType, type MetsChecksumType, type ParsedMets, type ParsedMetsFile } from './types.js';
import { decodeRelativeUrl } from './xml-text.js';
import { SiardOcflError } from '../../errors.js';

export type MetsFindingCode =
  /** a METS file cannot be parsed, or is not METS */
  | 'METS_MALFORMED'
  /** the parent lists a child METS that does not exist */
  | 'METS_CHILD_MISSING'
  /** parent/child identifiers do not match (OBJID, file ID, mptr href) */
  | 'METS_LINK_BROKEN'
  /** a listed file (SIARD, child METS, LOB) does not exist */
  | 'METS_FILE_MISSING'
  /** a file has another size than SIZE says */
  | 'METS_SIZE_MISMATCH'
  /** a file has another digest than CHECKSUM says */
  | 'METS_CHECKSUM_MISMATCH'
  /** a checksum could not be checked (none given, or an algorithm we cannot compute) */
  | 'METS_CHECKSUM_UNVERIFIED'
  /** a file in a segment folder, or referenced by a cell, is not listed by its child METS */
  | 'METS_FILE_UNLISTED'
  /** a child METS lists a file no cell references */
  | 'METS_FILE_UNREFERENCED'
  /** an FLocat is absent or its href is not a usable relative reference */
  | 'METS_HREF_INVALID'
  /** the same file is listed twice, or a child METS repeats a file ID */
  | 'METS_DUPLICATE';

export interface MetsFinding {
  code: MetsFindingCode;
  severity: 'error' | 'warning';
  message: string;
  /** the file concerned, relative to the caller's root */
  path: string;
}

type Maybe<T> = T | Promise<T>;

/** What the checker may ask about a file (root-relative '/'-separated path). */
export interface MetsFileFactsSource {
  /** byte size, or undefined when there is no such file */
  size(path: string): Maybe<number | undefined>;
  /** lower-case hex digest, or undefined when it cannot be computed */
  digest(path: string, type: MetsChecksumType): Maybe<string | undefined>;
}

export interface MetsIndexToCheck {
  /** path of the parent METS, e.g. `mets.xml` */
  parentPath: string;
  parent: ParsedMets;
  /**
   * Parsed child METS by path (as the parent's FLocat resolves it), or a loader called once per
   * child in turn (so only one child is in memory at a time). A child that exists but is absent
   * here, or is an Error, is reported as METS_MALFORMED.
   */
  children: ReadonlyMap<string, ParsedMets | Error> | ((path: string) => Promise<ParsedMets | Error | undefined>);
  facts: MetsFileFactsSource;
  /** every file that exists; enables the check for unlisted files in segment folders */
  presentFiles?: Iterable<string>;
  /** every LOB file the cells reference (each part of a split LOB); enables the cell checks */
  referencedFiles?: Iterable<string>;
}

/** The child METS paths the parent lists (resolved), for loading them. */
export function childMetsPaths(parentPath: string, parent: ParsedMets): string[] {
  const base = dirOf(parentPath);
  const out: string[] = [];
  for (const file of parent.files) {
    if (file.use !== CHILD_IP_USE) continue;
    const href = file.flocats[0]?.href;
    if (href === undefined) continue;
    const decoded = decodeRelativeUrl(href);
    if ('path' in decoded) out.push(join(base, decoded.path));
  }
  return out;
}

export async function checkMetsIndex(input: MetsIndexToCheck): Promise<MetsFinding[]> {
  const check = new MetsIndexCheck(input);
  await check.parent();
  await check.children();
  check.coverage();
  return check.findings;
}

/** One check of a METS index, in three steps: the parent, each child, what the children cover. */
class MetsIndexCheck {
  readonly findings: MetsFinding[] = [];
  private readonly parentBase: string;
  /** the parent's files of the child-METS fileGrp */
  private readonly childFiles: ParsedMetsFile[];
  /** the mptr hrefs of the parent's structMaps */
  private readonly mptrHrefs = new Set<string>();
  /** LOB file path -> the child METS that lists it */
  private readonly listedBy = new Map<string, string>();
  /** each child METS read, and the segment folder it indexes */
  private readonly segmentDirs: Array<{ dir: string; metsPath: string }> = [];

  constructor(private readonly input: MetsIndexToCheck) {
    this.parentBase = dirOf(input.parentPath);
    this.childFiles = input.parent.files.filter((f) => f.use === CHILD_IP_USE);
  }

  private report(code: MetsFindingCode, p: string, message: string, severity: 'error' | 'warning' = 'error'): void {
    this.findings.push({ code, severity, message, path: p });
  }

  /** The one FLocat href of a file resolved against `base`, or undefined after a finding. */
  private locate(file: ParsedMetsFile, base: string, metsPath: string): string | undefined {
    const label = file.id ? `file ${file.id}` : 'a file without ID';
    const hrefs = file.flocats.map((f) => f.href).filter((h): h is string => h !== undefined);
    if (hrefs.length !== 1) {
      this.report(
        'METS_HREF_INVALID',
        metsPath,
        `In ${metsPath}, ${label} has ${hrefs.length} FLocat xlink:href values; exactly one is expected.`,
      );
      return undefined;
    }
    const decoded = decodeRelativeUrl(hrefs[0]!);
    if ('problem' in decoded) {
      this.report(
        'METS_HREF_INVALID',
        metsPath,
        `In ${metsPath}, the FLocat "${hrefs[0]}" of ${label} cannot be used: ${decoded.problem}.`,
      );
      return undefined;
    }
    return join(base, decoded.path);
  }

  /** Compares a listed file with the facts; returns whether the file exists. */
  private async verify(file: ParsedMetsFile, filePath: string, metsPath: string, missingCode: MetsFindingCode): Promise<boolean> {
    const { facts } = this.input;
    const actualSize = await facts.size(filePath);
    if (actualSize === undefined) {
      this.report(missingCode, filePath, `${filePath}, listed in ${metsPath}${file.id ? ` as ${file.id}` : ''}, does not exist.`);
      return false;
    }
    if (file.size !== undefined) {
      const listed = /^\d+$/.test(file.size) ? Number(file.size) : NaN;
      if (listed !== actualSize) {
        this.report('METS_SIZE_MISMATCH', filePath, `${filePath} has ${actualSize} bytes, but ${metsPath} lists SIZE="${file.size}".`);
        return true; // a different length cannot have the same digest; do not read it again
      }
    }
    const type = file.checksumType;
    if (file.checksum === undefined || type === undefined) {
      this.report('METS_CHECKSUM_UNVERIFIED', filePath, `${metsPath} gives no CHECKSUM and CHECKSUMTYPE for ${filePath}.`, 'warning');
      return true;
    }
    if (!isMetsChecksumType(type)) {
      this.report(
        'METS_CHECKSUM_UNVERIFIED',
        filePath,
        `The CHECKSUMTYPE "${type}" of ${filePath} in ${metsPath} is not one this tool computes.`,
        'warning',
      );
      return true;
    }
    const actual = await facts.digest(filePath, type);
    if (actual === undefined) {
      this.report('METS_CHECKSUM_UNVERIFIED', filePath, `The ${type} digest of ${filePath} could not be computed.`, 'warning');
    } else if (actual.toLowerCase() !== file.checksum.toLowerCase()) {
      this.report(
        'METS_CHECKSUM_MISMATCH',
        filePath,
        `${filePath} has ${type} ${actual.toLowerCase()}, but ${metsPath} lists ${file.checksum}.`,
      );
    }
    return true;
  }

  /** The parent: its OBJID, the files it lists itself (the .siard), and its mptrs. */
  async parent(): Promise<void> {
    const { parentPath, parent } = this.input;
    if (!parent.objId) this.report('METS_LINK_BROKEN', parentPath, `${parentPath} has no OBJID, so its children cannot name it.`);
    for (const file of parent.files) {
      if (file.use === CHILD_IP_USE) continue;
      const p = this.locate(file, this.parentBase, parentPath);
      if (p !== undefined) await this.verify(file, p, parentPath, 'METS_FILE_MISSING');
    }
    for (const sm of parent.structMaps) for (const m of sm.mptrs) if (m.href !== undefined) this.mptrHrefs.add(m.href);
    const childIds = new Set(this.childFiles.map((f) => f.id).filter((id): id is string => id !== undefined));
    for (const href of this.mptrHrefs) {
      if (!childIds.has(href))
        this.report('METS_LINK_BROKEN', parentPath, `In ${parentPath}, the mptr "${href}" names no file of the "${CHILD_IP_USE}" fileGrp.`);
    }
  }

  /** Each child METS the parent lists: linked both ways, present, and every file it lists verified. */
  async children(): Promise<void> {
    const { parentPath } = this.input;
    const seenChildren = new Set<string>();
    for (const file of this.childFiles) {
      if (file.id === undefined || !this.mptrHrefs.has(file.id)) {
        this.report(
          'METS_LINK_BROKEN',
          parentPath,
          `In ${parentPath}, the child METS file ${file.id ?? '(no ID)'} has no mptr pointing at it.`,
        );
      }
      const metsPath = this.locate(file, this.parentBase, parentPath);
      if (metsPath === undefined) continue;
      if (seenChildren.has(metsPath)) {
        this.report('METS_DUPLICATE', parentPath, `${parentPath} lists the child METS ${metsPath} twice.`);
        continue;
      }
      seenChildren.add(metsPath);
      if (!(await this.verify(file, metsPath, parentPath, 'METS_CHILD_MISSING'))) continue;
      const children = this.input.children;
      const child = typeof children === 'function' ? await children(metsPath) : children.get(metsPath);
      if (child === undefined || child instanceof Error) {
        const why = child instanceof Error ? child.message : 'it was not read.';
        this.report('METS_MALFORMED', metsPath, `The child METS ${metsPath} could not be checked: ${why}`);
        continue;
      }
      await this.child(file, metsPath, child);
    }
  }

  private async child(file: ParsedMetsFile, metsPath: string, child: ParsedMets): Promise<void> {
    const { parentPath, parent } = this.input;
    const dir = dirOf(metsPath);
    this.segmentDirs.push({ dir, metsPath });
    if (file.id !== undefined && child.objId !== file.id) {
      this.report(
        'METS_LINK_BROKEN',
        metsPath,
        `${metsPath} has OBJID "${child.objId ?? ''}", but ${parentPath} knows it as "${file.id}".`,
      );
    }
    const back = child.structMaps.flatMap((s) => s.mptrs).map((m) => m.href);
    if (parent.objId !== undefined && !back.includes(parent.objId)) {
      this.report(
        'METS_LINK_BROKEN',
        metsPath,
        `${metsPath} has no mptr naming its parent "${parent.objId}" (found: ${back.map((h) => `"${h}"`).join(', ') || 'none'}).`,
      );
    }
    const seenIds = new Set<string>();
    for (const lob of child.files) {
      if (lob.id !== undefined) {
        if (seenIds.has(lob.id)) this.report('METS_DUPLICATE', metsPath, `${metsPath} uses the file ID ${lob.id} twice.`);
        seenIds.add(lob.id);
      }
      const p = this.locate(lob, dir, metsPath);
      if (p === undefined) continue;
      const earlier = this.listedBy.get(p);
      if (earlier !== undefined) {
        this.report('METS_DUPLICATE', p, `${p} is listed in ${earlier}${earlier === metsPath ? ' twice' : ` and again in ${metsPath}`}.`);
        continue;
      }
      this.listedBy.set(p, metsPath);
      await this.verify(lob, p, metsPath, 'METS_FILE_MISSING');
    }
  }

  /** Files in a segment folder no child lists, cells' files no child lists, listed files no cell references. */
  coverage(): void {
    const metsPaths = new Set(this.segmentDirs.map((s) => s.metsPath));
    const byDir = new Map(this.segmentDirs.map((s) => [s.dir, s]));
    /** The segment whose folder holds `p` (nearest ancestor folder with a child METS). */
    const segmentOf = (p: string) => {
      for (let d = dirOf(p); ; d = dirOf(d)) {
        const seg = byDir.get(d);
        if (seg || d === '') return seg;
      }
    };
    const unlisted = new Set<string>();
    if (this.input.presentFiles) {
      for (const p of this.input.presentFiles) {
        if (this.listedBy.has(p) || metsPaths.has(p)) continue;
        const seg = segmentOf(p);
        if (!seg) continue;
        unlisted.add(p);
        this.report('METS_FILE_UNLISTED', p, `${p} lies in the segment folder ${seg.dir} but ${seg.metsPath} does not list it.`);
      }
    }
    if (this.input.referencedFiles) {
      const referenced = new Set(this.input.referencedFiles);
      for (const p of referenced) {
        if (this.listedBy.has(p) || unlisted.has(p)) continue;
        const seg = segmentOf(p);
        this.report(
          'METS_FILE_UNLISTED',
          p,
          seg
            ? `${p} is referenced by a cell but ${seg.metsPath} does not list it.`
            : `${p} is referenced by a cell but no child METS lists it.`,
        );
      }
      for (const [p, metsPath] of this.listedBy) {
        if (!referenced.has(p)) this.report('METS_FILE_UNREFERENCED', p, `${metsPath} lists ${p}, but no cell references it.`);
      }
    }
  }
}

export interface MetsIndexSource {
  /** path of the parent METS, e.g. `mets.xml` */
  parentPath: string;
  /** the bytes of a file, or undefined when it does not exist */
  open(path: string): Maybe<MetsInput | undefined>;
  facts: MetsFileFactsSource;
  presentFiles?: Iterable<string>;
  referencedFiles?: Iterable<string>;
}

/** Reads the parent and every child it lists, then checks them (checkMetsIndex). */
export async function auditMetsIndex(source: MetsIndexSource): Promise<MetsFinding[]> {
  const bytes = await source.open(source.parentPath);
  if (bytes === undefined) {
    return [
      {
        code: 'METS_FILE_MISSING',
        severity: 'error',
        message: `The parent METS ${source.parentPath} does not exist.`,
        path: source.parentPath,
      },
    ];
  }
  let parent: ParsedMets;
  try {
    parent = await parseMets(bytes, source.parentPath);
  } catch (err) {
    return [{ code: 'METS_MALFORMED', severity: 'error', message: errorMessage(err), path: source.parentPath }];
  }
  // Children are read one at a time, when the check reaches them, and dropped after.
  const children = async (p: string): Promise<ParsedMets | Error | undefined> => {
    const childBytes = await source.open(p);
    if (childBytes === undefined) return undefined;
    try {
      return await parseMets(childBytes, p);
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    }
  };
  return checkMetsIndex({ ...source, parent, children });
}

function errorMessage(err: unknown): string {
  return err instanceof SiardOcflError || err instanceof Error ? err.message : String(err);
}

function dirOf(p: string): string {
  const d = path.dirname(p);
  return d === '.' ? '' : d;
}

function join(base: string, rel: string): string {
  return base ? `${base}/${rel}` : rel;
}
