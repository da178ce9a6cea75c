/**
 * The child METS of one segment folder (`<segment>/mets.xml`), written as a stream: the header,
 * one `file` per LOB file as it is added, then the structMaps.
 *
 * Structure as in the seed's "Child IP mets file": fileSec / fileGrp ID_SIARD_FILES / fileGrp of
 * the segment / file (ID, MIMETYPE, OWNERID, CHECKSUMTYPE, CHECKSUM, SIZE) / FLocat; a structMap
 * TYPE="LOBPOINTER" for the files of the segment; a structMap TYPE="logical" whose mptr's
 * xlink:href is the parent's OBJID. The seed's example is schema-valid METS too; the differences
 * make the values mean what METS says they mean:
 * - FLocat xlink:href is a relative URL reference resolved against this METS file, i.e. inside
 *   the segment folder (`content/schema0/table2/lob4/record0.bin`), percent-encoded. The seed's
 *   `file:///Northwind_lobseg_0/...` is an absolute URL at the root of a file system, which breaks
 *   as soon as the folders move, the very case the index exists for.
 * - MIMETYPE is written only when known; the seed's "binary" is not a media type.
 * - The LOBPOINTER div holds one `fptr FILEID=...` per file. The seed's single `fptr` with only
 *   CONTENTIDS points at no file; METS says an fptr's content must be files of the fileSec,
 *   reached through FILEID or an area/seq/par child, and the seed's has neither.
 *
 * Memory: the IDs of the files (for the structMap and the duplicate check) and their paths (for
 * the duplicate check) stay in memory as bytes (string-list.ts), about 70 bytes per file with
 * their hash tables; everything else is flushed as it is written.
 */
import { childMetsObjId, lobFileId, lobOwnerId } from './ids.js';
import { duplicateIdError, IdRegistry, metsHeader } from './header.js';
import { StringSet } from './string-list.js';
import { MetsTextOutput, type ByteWriter, type WrittenMets } from './output.js';
import { METS_FILE_NAME, NODE_HASH_OF_CHECKSUM_TYPE, type MetsChecksumType, type MetsLobFile } from './types.js';
import { encodeUriPath } from '../uri-path.js';
import { attr, ncNameOf } from './xml-text.js';
import { HEX_LENGTH_OF_DIGEST_NAME } from '../digest-names.js';

export interface ChildMetsOptions {
  /** segment folder relative to the parent METS folder, e.g. `Northwind_lobseg_0` */
  segment: string;
  /** OBJID of the parent METS: the archive identifier (the OCFL object id when ingesting) */
  parentObjId: string;
  /** the LOB digest algorithm; every CHECKSUM of this file is in it */
  checksumType: MetsChecksumType;
  /** CREATEDATE; defaults to now */
  createDate?: Date;
  agentName?: string;
}

export interface WrittenChildMets extends WrittenMets {
  segment: string;
  /** OBJID of the child (the parent's file ID and mptr href for it) */
  objId: string;
  fileCount: number;
}

const HEX = /^[0-9a-f]+$/;
const CHILD_DOCUMENT = 'a child METS';

export function checkChecksum(checksum: string, type: MetsChecksumType, what: string): void {
  if (!HEX.test(checksum) || checksum.length !== HEX_LENGTH_OF_DIGEST_NAME[type]) {
    throw new Error(`The ${type} checksum "${checksum}" of ${what} is not ${HEX_LENGTH_OF_DIGEST_NAME[type]} lower-case hex digits.`);
  }
}

export function checkSize(size: number, what: string): void {
  if (!Number.isSafeInteger(size) || size < 0) throw new Error(`The size ${size} of ${what} is not a byte count.`);
}

/** Checks a segment folder path (relative, '/'-separated, no '.' or '..'). */
export function checkSegment(segment: string): void {
  const parts = segment.split('/');
  if (segment.length === 0 || segment.includes('\\') || segment.includes('\0') || parts.some((p) => p === '' || p === '.' || p === '..')) {
    throw new Error(`"${segment}" is not a usable segment folder path.`);
  }
}

export class ChildMetsWriter {
  private readonly output: MetsTextOutput;
  /** IDs of the header and structMaps; those of the files are in fileIds (`s...`, never `ID_...`, so the two cannot clash) */
  private readonly ids = new IdRegistry(CHILD_DOCUMENT);
  private readonly paths = new StringSet();
  /** in the order the files were added */
  private readonly fileIds = new StringSet();
  private started = false;
  private finished = false;
  readonly objId: string;

  constructor(
    out: ByteWriter,
    private readonly options: ChildMetsOptions,
  ) {
    checkSegment(options.segment);
    this.output = new MetsTextOutput(out, NODE_HASH_OF_CHECKSUM_TYPE[options.checksumType]);
    this.objId = childMetsObjId(options.segment);
  }

  private async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const seg = ncNameOf(this.options.segment);
    await this.output.text(
      metsHeader({
        objId: this.objId,
        id: this.ids.add(`ID_${seg}.mets.element`),
        label: 'SIARD 2.0 child IP',
        documentId: `IP child SIARD content: ${this.options.segment}`,
        createDate: this.options.createDate,
        agentName: this.options.agentName,
      }) +
        '  <mets:fileSec>\n' +
        `    <mets:fileGrp${attr('ID', this.ids.add('ID_SIARD_FILES'))}>\n` +
        `      <mets:fileGrp${attr('ID', this.ids.add(`ID_${seg}`))}>\n`,
    );
  }

  /** Adds one LOB file of the segment. */
  async addFile(file: MetsLobFile): Promise<void> {
    if (this.finished) throw new Error(`The child METS of ${this.options.segment} is already finished.`);
    await this.start();
    const what = `${this.options.segment}/${file.path}`;
    checkSegment(file.path);
    if (file.path === METS_FILE_NAME) throw new Error(`A LOB file cannot be called ${what}: that is the child METS itself.`);
    if (!this.paths.add(file.path)) throw new Error(`The LOB file ${what} is listed twice.`);
    checkSize(file.size, what);
    checkChecksum(file.checksum, this.options.checksumType, what);
    const id = lobFileId(file.identity);
    if (!this.fileIds.add(id)) throw duplicateIdError(id, CHILD_DOCUMENT);
    await this.output.text(
      `        <mets:file${attr('ID', id)}${attr('MIMETYPE', file.mimeType)}${attr('OWNERID', lobOwnerId(file.identity))}` +
        `${attr('CHECKSUMTYPE', this.options.checksumType)}${attr('CHECKSUM', file.checksum)}${attr('SIZE', file.size)}>\n` +
        `          <mets:FLocat LOCTYPE="URL" xlink:type="simple"${attr('xlink:href', encodeUriPath(file.path))}/>\n` +
        '        </mets:file>\n',
    );
  }

  /** Writes the structMaps and the end; the result's checksum covers the whole file. */
  async finish(): Promise<WrittenChildMets> {
    if (this.finished) throw new Error(`The child METS of ${this.options.segment} is already finished.`);
    await this.start();
    this.finished = true;
    await this.output.text(
      '      </mets:fileGrp>\n    </mets:fileGrp>\n  </mets:fileSec>\n' +
        '  <mets:structMap TYPE="LOBPOINTER" LABEL="SIARD External LOB structmap">\n' +
        '    <mets:div LABEL="SIARD LOBs as external files">\n',
    );
    for (const id of this.fileIds) await this.output.text(`      <mets:fptr${attr('FILEID', id)}/>\n`);
    await this.output.text(
      '    </mets:div>\n  </mets:structMap>\n' +
        '  <mets:structMap TYPE="logical" LABEL="parent IP">\n' +
        '    <mets:div LABEL="IP parent identifier">\n' +
        `      <mets:mptr${attr('ID', this.ids.add('ID_parent_mptr'))} LOCTYPE="OTHER" OTHERLOCTYPE="METS OBJID"` +
        `${attr('xlink:href', this.options.parentObjId)} xlink:title="Referencing the parent IP of this child IP"/>\n` +
        '    </mets:div>\n  </mets:structMap>\n</mets:mets>\n',
    );
    const written = await this.output.end();
    const fileCount = this.fileIds.size;
    this.paths.clear(); // a finished child needs them no more; the index may write others meanwhile
    this.fileIds.clear();
    return { ...written, segment: this.options.segment, objId: this.objId, fileCount };
  }
}
