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
import { METS_NS, XLINK_NS, type ParsedMets, type ParsedMetsFile, type ParsedStructMap } from './types.js';

export type MetsInput = string | Uint8Array | AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>;

/** A METS larger than this is refused (a child of 100,000 files is about 40 MB). */
const MAX_METS_BYTES = 2 * 1024 * 1024 * 1024;

function metsError(what: string, message: string): SiardOcflError {
  return new SiardOcflError(`${what} is not a usable METS file: ${message.replace(/\.+$/, '')}.`, { code: 'METS_MALFORMED', exitCode: 1 });
}

export async function parseMets(input: MetsInput, what = 'The METS file'): Promise<ParsedMets> {
  const parser = new SaxesParser({ xmlns: true, position: true });
  const collector = new MetsCollector(what);
  parser.on('error', (err) => {
    throw metsError(what, err.message);
  });
  parser.on('doctype', () => {
    throw metsError(what, 'it has a DOCTYPE declaration (refused: the METS index never has one, and it could declare entities)');
  });
  parser.on('opentag', (tag) => collector.open(tag));
  parser.on('text', (text) => collector.text(text));
  parser.on('closetag', (tag) => collector.close(tag));
  try {
    await feed(parser, input, what);
    parser.close();
  } catch (err) {
    if (err instanceof SiardOcflError) throw err;
    throw metsError(what, err instanceof Error ? err.message : String(err));
  }
  return collector.result();
}

/** Keeps what the index needs of each element as the parser meets it. */
class MetsCollector {
  private readonly parsed: ParsedMets = { files: [], structMaps: [] };
  /** Each open fileGrp with the IDs and USE its files inherit, computed once and shared by them. */
  private readonly groups: Array<{ ids: readonly string[]; use?: string }> = [];
  /** the open file elements (files nest) */
  private readonly files: ParsedMetsFile[] = [];
  private structMap: ParsedStructMap | undefined;
  private depth = 0;
  private rootSeen = false;
  private inAgent = false;
  /** text of the first agent's name while it is being read */
  private agentName: string | undefined;

  constructor(private readonly what: string) {}

  result(): ParsedMets {
    if (!this.rootSeen) throw metsError(this.what, 'it has no root element');
    return this.parsed;
  }

  /** Long because: one branch per METS element this reader keeps, in the order METS nests them. */
  open(tag: SaxesTagNS): void {
    this.depth++;
    const a = (local: string, ns = ''): string | undefined => {
      for (const at of Object.values(tag.attributes)) if (at.local === local && at.uri === ns) return at.value;
      return undefined;
    };
    const result = this.parsed;
    if (this.depth === 1) {
      this.rootSeen = true;
      if (tag.local !== 'mets' || tag.uri !== METS_NS) {
        throw metsError(this.what, `its root element is {${tag.uri}}${tag.local}, not {${METS_NS}}mets`);
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
        if (this.inAgent && result.agentName === undefined) this.agentName = '';
        break;
      case 'agent':
        this.inAgent = true;
        break;
      case 'fileGrp': {
        const outer = this.groups[this.groups.length - 1];
        this.groups.push({ ids: Object.freeze([...(outer?.ids ?? []), a('ID') ?? '']), use: a('USE') ?? outer?.use });
        break;
      }
      case 'file': {
        const group = this.groups[this.groups.length - 1];
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
        this.files.push(file);
        result.files.push(file);
        break;
      }
      case 'FLocat':
        this.files[this.files.length - 1]?.flocats.push({
          locType: a('LOCTYPE'),
          otherLocType: a('OTHERLOCTYPE'),
          href: a('href', XLINK_NS),
        });
        break;
      case 'transformFile':
        this.files[this.files.length - 1]?.transforms.push({
          type: a('TRANSFORMTYPE'),
          algorithm: a('TRANSFORMALGORITHM'),
          order: a('TRANSFORMORDER'),
        });
        break;
      case 'structMap':
        this.structMap = { type: a('TYPE'), label: a('LABEL'), mptrs: [], fptrs: [] };
        result.structMaps.push(this.structMap);
        break;
      case 'mptr':
        this.structMap?.mptrs.push({
          id: a('ID'),
          href: a('href', XLINK_NS),
          locType: a('LOCTYPE'),
          otherLocType: a('OTHERLOCTYPE'),
          title: a('title', XLINK_NS),
        });
        break;
      case 'fptr':
        this.structMap?.fptrs.push({ fileId: a('FILEID'), contentIds: a('CONTENTIDS') });
        break;
    }
  }

  text(text: string): void {
    if (this.agentName !== undefined) this.agentName += text;
  }

  close(tag: { uri: string; local: string }): void {
    this.depth--;
    if (tag.uri !== METS_NS) return;
    if (tag.local === 'agent') this.inAgent = false;
    else if (tag.local === 'name' && this.agentName !== undefined) {
      this.parsed.agentName = this.agentName;
      this.agentName = undefined;
    }
    if (tag.local === 'fileGrp') this.groups.pop();
    else if (tag.local === 'file') this.files.pop();
    else if (tag.local === 'structMap') this.structMap = undefined;
  }
}

/** Writes the input into the parser as text: UTF-8 decoded strictly, the size bounded. */
async function feed(parser: SaxesParser<{ xmlns: true; position: true }>, input: MetsInput, what: string): Promise<void> {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  let bytes = 0;
  const write = (chunk: Uint8Array | string, last: boolean): void => {
    let text: string;
    bytes += chunk.length;
    if (typeof chunk === 'string') text = chunk;
    else {
      try {
        text = decoder.decode(chunk, { stream: !last });
      } catch {
        throw metsError(what, 'it is not valid UTF-8');
      }
    }
    if (bytes > MAX_METS_BYTES) throw metsError(what, `it is larger than ${MAX_METS_BYTES} bytes`);
    if (text.length > 0) parser.write(text);
  };
  if (typeof input === 'string' || input instanceof Uint8Array) {
    write(input, true);
    return;
  }
  for await (const chunk of input as AsyncIterable<Uint8Array | string>) write(chunk, false);
  write(new Uint8Array(0), true);
}
