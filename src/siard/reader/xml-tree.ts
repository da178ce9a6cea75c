/**
 * A small, safe XML-to-tree parse for `header/metadata.xml` (kilobytes to a few MB): saxes with
 * namespaces, element names by local name (SIARD 1.0 and 2.x differ only in the namespace URI).
 *
 * Safety: saxes never reads external entities and never expands entities declared in a DTD; we go
 * further and refuse any DOCTYPE outright (SIARD metadata has none) and stop at the first error,
 * so neither XXE nor "billion laughs" can get through. A size cap bounds memory.
 */
import { SaxesParser, type SaxesTagNS } from 'saxes';
import { SiardOcflError } from '../../errors.js';

export interface XmlElement {
  /** local name, e.g. "siardArchive" */
  name: string;
  /** namespace URI ("" when none) */
  ns: string;
  /** attributes by local name */
  attributes: Record<string, string>;
  children: XmlElement[];
  /** concatenated character data directly inside this element */
  text: string;
}

/** Metadata larger than this is refused rather than held in memory. */
const MAX_METADATA_BYTES = 256 * 1024 * 1024;

/**
 * Deeper nesting is refused: SIARD metadata nests about a dozen levels, and saxes's namespace
 * lookup walks the whole ancestor chain, so 100,000 nested elements would take hours (quadratic).
 */
const MAX_METADATA_DEPTH = 1000;

export function parseXmlTree(xml: string, what: string): XmlElement {
  if (xml.length > MAX_METADATA_BYTES) {
    throw new SiardOcflError(`${what} is larger than ${MAX_METADATA_BYTES} bytes; refusing to read it.`, {
      code: 'SIARD_METADATA',
      exitCode: 1,
    });
  }
  const parser = new SaxesParser({ xmlns: true, position: true });
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let failure: Error | undefined;
  const fail = (message: string): void => {
    failure ??= new SiardOcflError(`${what} is not well-formed XML: ${message}.`, { code: 'SIARD_METADATA', exitCode: 1 });
  };
  parser.on('error', (err) => fail(err.message));
  parser.on('doctype', () => fail('it has a DOCTYPE declaration, which SIARD metadata never has (refused to avoid entity attacks)'));
  parser.on('opentag', (tag: SaxesTagNS) => {
    // Thrown, not noted: it must stop the parse at once (caught around parser.write below).
    if (stack.length >= MAX_METADATA_DEPTH) throw new Error(`elements are nested more than ${MAX_METADATA_DEPTH} deep`);
    const attributes: Record<string, string> = {};
    for (const a of Object.values(tag.attributes)) attributes[a.local] = a.value;
    const el: XmlElement = { name: tag.local, ns: tag.uri, attributes, children: [], text: '' };
    if (stack.length > 0) stack[stack.length - 1]!.children.push(el);
    else root = el;
    stack.push(el);
  });
  parser.on('text', (t) => {
    if (stack.length > 0) stack[stack.length - 1]!.text += t;
  });
  parser.on('cdata', (t) => {
    if (stack.length > 0) stack[stack.length - 1]!.text += t;
  });
  parser.on('closetag', () => {
    stack.pop();
  });
  // A UTF-8 byte order mark (Full Convert, sql1999.siard) is not XML; drop it.
  const body = xml.charCodeAt(0) === 0xfeff ? xml.slice(1) : xml;
  try {
    parser.write(body).close();
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err));
  }
  if (failure) throw failure;
  if (!root) throw new SiardOcflError(`${what} has no root element.`, { code: 'SIARD_METADATA', exitCode: 1 });
  return root;
}

/** First child element called `name`. */
export function child(el: XmlElement | undefined, name: string): XmlElement | undefined {
  return el?.children.find((c) => c.name === name);
}

/** All child elements called `name`. */
export function children(el: XmlElement | undefined, name: string): XmlElement[] {
  return el ? el.children.filter((c) => c.name === name) : [];
}

/** Text of the first child `name`, or undefined when absent. */
export function childText(el: XmlElement | undefined, name: string): string | undefined {
  return child(el, name)?.text;
}
