/**
 * Reads a parent or child METS of the index back into plain data (types.ts), streaming with
 * saxes: a child METS of 100,000 files is parsed chunk by chunk, and only the facts kept (files,
 * FLocats, structMap pointers) stay in memory.
 *
 * Safety: a DOCTYPE is refused outright (the index never has one), so no entity can be declared,
 * let alone expanded or fetched; saxes itself never reads external resources. The first
 * well-formedness error stops the parse. Invalid UTF-8 is an error, not a replacement character.
 */
import { SaxesParser, type SaxesTagNS } from 'saxes';
import { SiardOcflError } from '../../errors.js';
import {
  METS_NS,
  XLINK_NS,
  type ParsedMets,
  type ParsedMetsFile,
  type ParsedStructMap,
} from './types.js';

export type MetsInput = string | Uint8Array | AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>;

/** A METS larger than this is refused (a child of 100,000 files is about 40 MB). */
export const MAX_METS_BYTES = 2 * 1024 * 1024 * 1024;

export function metsError(what: string, message: string): SiardOcflError {
  return new SiardOcflError(`${what} is not a usable METS file: ${message.replace(/\.+$/, '')}.`, { code: 'METS_MALFORMED', exitCode: 1 });
}

export async function parseMets(input: MetsInput, what = 'The METS file'): Promise<ParsedMets> {
  const parser = new SaxesParser({ xmlns: true, position: true });
  const result: ParsedMets = { files: [], structMaps: [] };
  // Each open fileGrp with the IDs and USE its files inherit, computed once and shared by them.
  const groups: Array<{ ids: readonly string[]; use?: string }> = [];
  const files: ParsedMetsFile[] = [];
  let structMap: ParsedStructMap | undefined;
  let depth = 0;
  let rootSeen = false;
  let inAgent = false;
  /** text of the first agent's name while it is being read */
  let agentName: string | undefined;

  parser.on('error', (err) => {
    throw metsError(what, err.message);
  });
  parser.on('doctype', () => {
    throw metsError(what, 'it has a DOCTYPE declaration (refused: the METS index never has one, and it could declare entities)');
  });
  parser.on('opentag', (tag: SaxesTagNS) => {
    depth++;
    const a = (local: string, ns = ''): string | undefined => {
      for (const at of Object.values(tag.attributes)) if (at.local === local && at.uri === ns) return at.value;
      return undefined;
    };
    if (depth === 1) {
      rootSeen = true;
      if (tag.local !== 'mets' || tag.uri !== METS_NS) {
        throw metsError(what, `its root element is {${tag.uri}}${tag.local}, not {${METS_NS}}mets`);
      }
      result.objId = a('OBJID');
      result.id = a('ID');
      result.type = a('TYPE');
      result.label = a('LABEL');
      result.profile = a('PROFILE');
      return;
    }
    if (tag.uri !== METS_NS) return;
    switch (tag.local) {
      case 'metsHdr':
        result.createDate = a('CREATEDATE');
        result.lastModDate = a('LASTMODDATE');
        break;
      case 'name':
        if (inAgent && result.agentName === undefined) agentName = '';
        break;
      case 'agent':
        inAgent = true;
        break;
      case 'fileGrp':
        {
          const outer = groups[groups.length - 1];
          groups.push({ ids: Object.freeze([...(outer?.ids ?? []), a('ID') ?? '']), use: a('USE') ?? outer?.use });
        }
        break;
      case 'file': {
        const group = groups[groups.length - 1];
        const file: ParsedMetsFile = {
          id: a('ID'),
          ownerId: a('OWNERID'),
          mimeType: a('MIMETYPE'),
          size: a('SIZE'),
          checksum: a('CHECKSUM'),
          checksumType: a('CHECKSUMTYPE'),
          use: group?.use,
          groupIds: group?.ids ?? [],
          flocats: [],
          transforms: [],
        };
        files.push(file);
        result.files.push(file);
        break;
      }
      case 'FLocat':
        files[files.length - 1]?.flocats.push({ locType: a('LOCTYPE'), otherLocType: a('OTHERLOCTYPE'), href: a('href', XLINK_NS) });
        break;
      case 'transformFile':
        files[files.length - 1]?.transforms.push({ type: a('TRANSFORMTYPE'), algorithm: a('TRANSFORMALGORITHM'), order: a('TRANSFORMORDER') });
        break;
      case 'structMap':
        structMap = { type: a('TYPE'), label: a('LABEL'), mptrs: [], fptrs: [] };
        result.structMaps.push(structMap);
        break;
      case 'mptr':
        structMap?.mptrs.push({
          id: a('ID'),
          href: a('href', XLINK_NS),
          locType: a('LOCTYPE'),
          otherLocType: a('OTHERLOCTYPE'),
          title: a('title', XLINK_NS),
        });
        break;
      case 'fptr':
        structMap?.fptrs.push({ fileId: a('FILEID'), contentIds: a('CONTENTIDS') });
        break;
    }
  });
  parser.on('text', (text) => {
    if (agentName !== undefined) agentName += text;
  });
  parser.on('closetag', (tag) => {
    depth--;
    if (tag.uri !== METS_NS) return;
    if (tag.local === 'agent') inAgent = false;
    else if (tag.local === 'name' && agentName !== undefined) {
      result.agentName = agentName;
      agentName = undefined;
    }
    if (tag.local === 'fileGrp') groups.pop();
    else if (tag.local === 'file') files.pop();
    else if (tag.local === 'structMap') structMap = undefined;
  });

  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  let bytes = 0;
  const feed = (chunk: Uint8Array | string, last: boolean): void => {
    let text: string;
    if (typeof chunk === 'string') {
      text = chunk;
      bytes += chunk.length;
    } else {
      bytes += chunk.length;
      try {
        text = decoder.decode(chunk, { stream: !last });
      } catch {
        throw metsError(what, 'it is not valid UTF-8');
      }
    }
    if (bytes > MAX_METS_BYTES) throw metsError(what, `it is larger than ${MAX_METS_BYTES} bytes`);
    if (text.length > 0) parser.write(text);
  };
  try {
    if (typeof input === 'string' || input instanceof Uint8Array) {
      feed(input, true);
    } else {
      for await (const chunk of input as AsyncIterable<Uint8Array | string>) feed(chunk, false);
      feed(new Uint8Array(0), true);
    }
    parser.close();
  } catch (err) {
    if (err instanceof SiardOcflError) throw err;
    throw metsError(what, err instanceof Error ? err.message : String(err));
  }
  if (!rootSeen) throw metsError(what, 'it has no root element');
  return result;
}
