/**
 * The opening of a METS document as the seed writes it: the `mets` root with OBJID, ID, TYPE and
 * LABEL, and a `metsHdr` naming the creating software.
 *
 * Where the seed is not usable as printed we do what METS 1.12 allows and means:
 * - xsi:schemaLocation points at the METS schema's public address, not at a `schemas/mets.xsd`
 *   that no package contains;
 * - PROFILE is left out: "http://SIARD2.0.xml" is not a registered METS profile, and PROFILE
 *   claims conformance to one.
 */
import { METS_NS, XLINK_NS, XSI_NS } from './types.js';
import { escapeXmlAttribute } from '../xml-text.js';
import { attr } from './xml-text.js';

const METS_SCHEMA_LOCATION = 'http://www.loc.gov/standards/mets/mets.xsd';
/** TYPE of both documents, as the seed names the index. */
const METS_INDEX_TYPE = 'SIARD2.0 INDEX';
const DEFAULT_AGENT_NAME = 'siard-ocfl';

export interface MetsHeaderOptions {
  objId: string;
  id: string;
  label: string;
  documentId: string;
  /** CREATEDATE; defaults to now. Give a fixed date for byte-identical output. */
  createDate?: Date;
  /** LASTMODDATE, for a document rewritten after its creation (left out when undefined) */
  lastModDate?: Date;
  /** name of the creating software in metsHdr/agent */
  agentName?: string;
}

/** xsd:dateTime in UTC without milliseconds. */
function metsDateTime(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new Error('The METS CREATEDATE is not a valid date.');
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function metsHeader(options: MetsHeaderOptions): string {
  const date = metsDateTime(options.createDate ?? new Date());
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<mets:mets xmlns:mets="${METS_NS}" xmlns:xlink="${XLINK_NS}" xmlns:xsi="${XSI_NS}"` +
    ` xsi:schemaLocation="${METS_NS} ${METS_SCHEMA_LOCATION}"` +
    attr('OBJID', options.objId) +
    attr('ID', options.id) +
    attr('TYPE', METS_INDEX_TYPE) +
    attr('LABEL', options.label) +
    '>\n' +
    `  <mets:metsHdr${attr('CREATEDATE', date)}${attr('LASTMODDATE', options.lastModDate && metsDateTime(options.lastModDate))} ` +
    `RECORDSTATUS="NEW">\n` +
    '    <mets:agent ROLE="CREATOR" TYPE="OTHER" OTHERTYPE="SOFTWARE">\n' +
    `      <mets:name>${escapeXmlAttribute(options.agentName ?? DEFAULT_AGENT_NAME, 'The METS agent name')}</mets:name>\n` +
    '      <mets:note>Created following the E-ARK recommendation for external LOB handling in SIARD 2 (METS index of the LOB ' +
    'segment folders)</mets:note>\n' +
    '    </mets:agent>\n' +
    `    <mets:metsDocumentID>${escapeXmlAttribute(options.documentId, 'The METS document ID')}</mets:metsDocumentID>\n` +
    '  </mets:metsHdr>\n'
  );
}

export function duplicateIdError(id: string, documentName: string): Error {
  return new Error(`The ID "${id}" would appear twice in ${documentName}.`);
}

/** Fails when an xsd:ID value repeats within one document. */
export class IdRegistry {
  private readonly seen = new Set<string>();
  constructor(private readonly documentName: string) {}
  add(id: string): string {
    if (this.seen.has(id)) throw duplicateIdError(id, this.documentName);
    this.seen.add(id);
    return id;
  }
}
