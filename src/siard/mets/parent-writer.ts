/**
 * The parent METS beside the `.siard` (seed: "Parent IP mets file"): OBJID = the archive
 * identifier; fileSec / fileGrp ID_SIARD_FILES with a fileGrp for the SIARD file (checksum, size,
 * FLocat, transformFile decompression ZIP64) and a fileGrp USE="child IP" with one file per
 * child METS; a PHYSICAL structMap with the SIARD file's fptr and one mptr per child whose
 * xlink:href is the child's OBJID, equal to the ID of the child's file entry here.
 *
 * Differences from the seed (whose example is schema-valid too), so the values mean what METS
 * says they mean:
 * - FLocat hrefs are relative URL references (`Northwind.siard`, `Northwind_lobseg_0/mets.xml`),
 *   not `file:///...` URLs at a file system root, so the index survives a move.
 * - MIMETYPE: `application/zip` for the SIARD file and `text/xml` for the METS files; the seed's
 *   "OTHER/SIARD" and "xml/mets" are not media types. SIZE is added to each file.
 * - Each child IP div holds, after its mptr, an fptr to the child's file entry, so every file of
 *   the fileSec is reached from the structMap.
 * - IDs are derived from names, not random UUIDs, so the same input gives the same bytes.
 */
import { checkChecksum, checkSegment, checkSize } from './child-writer.js';
import { childMetsObjId } from './ids.js';
import { IdRegistry, metsHeader } from './header.js';
import { MetsTextOutput, type ByteWriter, type WrittenMets } from './output.js';
import { CHILD_IP_USE, METS_FILE_NAME, NODE_HASH_OF_CHECKSUM_TYPE, type MetsChecksumType } from './types.js';
import { encodeUriPath } from '../uri-path.js';
import { attr, ncNameOf } from './xml-text.js';

const SIARD_FILE_ID = 'ID_SIARD_ARCHIVE';
const SIARD_MIMETYPE = 'application/zip';
const METS_MIMETYPE = 'text/xml';

export interface ParentMetsSiardFile {
  /** path of the `.siard` relative to the parent METS folder, e.g. `Northwind.siard` */
  path: string;
  size: number;
  checksum: string;
  /** TRANSFORMALGORITHM of the decompression step; the seed writes ZIP64 (ZIP32 "also allowed") */
  transformAlgorithm?: string;
}

export interface ParentMetsChild {
  /** segment folder relative to the parent METS folder */
  segment: string;
  /** size and checksum of `<segment>/mets.xml` */
  size: number;
  checksum: string;
}

export interface ParentMetsOptions {
  /** the archive identifier (the OCFL object id when ingesting) */
  objId: string;
  checksumType: MetsChecksumType;
  siard: ParentMetsSiardFile;
  /** a segmented SIARD file: the segments after the first (`siard`), in order, each listed as a file */
  siardSegments?: ParentMetsSiardFile[];
  children: ParentMetsChild[];
  createDate?: Date;
  /** LASTMODDATE of a parent rewritten later (relocate), left out when undefined */
  lastModDate?: Date;
  agentName?: string;
}

export async function writeParentMets(out: ByteWriter, options: ParentMetsOptions): Promise<WrittenMets> {
  const { objId, checksumType } = options;
  if (objId.length === 0) throw new Error('The parent METS needs a non-empty OBJID (the archive identifier).');
  const siards = [options.siard, ...(options.siardSegments ?? [])];
  for (const siard of siards) {
    checkSegment(siard.path);
    checkSize(siard.size, siard.path);
    checkChecksum(siard.checksum, checksumType, siard.path);
  }
  // One file: the seed's ID; the segments of a segmented SIARD file: that ID numbered from the second.
  const fileIds = siards.map((_f, i) => (i === 0 ? SIARD_FILE_ID : `${SIARD_FILE_ID}_${i + 1}`));
  const ids = new IdRegistry('the parent METS');
  const output = new MetsTextOutput(out, NODE_HASH_OF_CHECKSUM_TYPE[checksumType]);
  await output.text(
    metsHeader({
      objId,
      id: ids.add(`${/^[A-Za-z_][A-Za-z0-9._-]*$/.test(objId) ? objId : `ID_${ncNameOf(objId)}`}.mets.element`),
      label: 'SIARD 2.0 parent',
      documentId: 'IP parent SIARD content',
      createDate: options.createDate,
      lastModDate: options.lastModDate,
      agentName: options.agentName,
    }) +
      '  <mets:fileSec>\n' +
      `    <mets:fileGrp${attr('ID', ids.add('ID_SIARD_FILES'))}>\n` +
      `      <mets:fileGrp${attr('ID', ids.add('ID_SIARD_DDL'))}>\n` +
      siards
        .map(
          (siard, i) =>
            `        <mets:file${attr('ID', ids.add(fileIds[i]!))}${attr('MIMETYPE', SIARD_MIMETYPE)}${attr('OWNERID', objId)}` +
            `${attr('CHECKSUMTYPE', checksumType)}${attr('CHECKSUM', siard.checksum)}${attr('SIZE', siard.size)}>\n` +
            `          <mets:FLocat LOCTYPE="URL" xlink:type="simple"${attr('xlink:href', encodeUriPath(siard.path))}/>\n` +
            '          <mets:transformFile TRANSFORMTYPE="decompression"' +
            `${attr('TRANSFORMALGORITHM', siard.transformAlgorithm ?? 'ZIP64')} TRANSFORMORDER="1"/>\n` +
            '        </mets:file>\n',
        )
        .join('') +
      '      </mets:fileGrp>\n' +
      `      <mets:fileGrp${attr('USE', CHILD_IP_USE)}${attr('ID', ids.add('ID_CHILD_IPS'))}>\n`,
  );
  const segments = new Set<string>();
  for (const child of options.children) {
    checkSegment(child.segment);
    if (segments.has(child.segment)) throw new Error(`The segment ${child.segment} is listed twice in the parent METS.`);
    segments.add(child.segment);
    const metsPath = `${child.segment}/${METS_FILE_NAME}`;
    checkSize(child.size, metsPath);
    checkChecksum(child.checksum, checksumType, metsPath);
    await output.text(
      `        <mets:file${attr('ID', ids.add(childMetsObjId(child.segment)))}${attr('MIMETYPE', METS_MIMETYPE)}${attr('OWNERID', objId)}` +
        `${attr('CHECKSUMTYPE', checksumType)}${attr('CHECKSUM', child.checksum)}${attr('SIZE', child.size)}>\n` +
        `          <mets:FLocat LOCTYPE="URL" xlink:type="simple"${attr('xlink:href', encodeUriPath(metsPath))}/>\n` +
        '        </mets:file>\n',
    );
  }
  await output.text(
    '      </mets:fileGrp>\n    </mets:fileGrp>\n  </mets:fileSec>\n' +
      '  <mets:structMap TYPE="PHYSICAL" LABEL="SIARD structmap">\n' +
      '    <mets:div LABEL="SIARD files">\n' +
      '      <mets:div LABEL="SIARD central file">\n' +
      fileIds.map((id) => `        <mets:fptr${attr('FILEID', id)}/>\n`).join('') +
      '      </mets:div>\n' +
      '      <mets:div LABEL="child IPs">\n',
  );
  for (const child of options.children) {
    const childId = childMetsObjId(child.segment);
    await output.text(
      '        <mets:div LABEL="child IP">\n' +
        `          <mets:mptr${attr('ID', ids.add(`ID_${ncNameOf(child.segment)}_mptr`))} LOCTYPE="OTHER" OTHERLOCTYPE="METS OBJID"` +
        `${attr('xlink:href', childId)} xlink:title="Reference to a child IP"/>\n` +
        `          <mets:fptr${attr('FILEID', childId)}/>\n` +
        '        </mets:div>\n',
    );
  }
  await output.text('      </mets:div>\n    </mets:div>\n  </mets:structMap>\n</mets:mets>\n');
  return output.end();
}
