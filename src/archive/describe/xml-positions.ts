/**
 * metadata.xml as a tree of elements that know where they are in the text, so that `describe`
 * can change one element's text (or insert or remove one element) and leave every other byte
 * as it was. Read with saxes, as the reader reads it (xml-tree.ts: no DOCTYPE, no entities).
 * Offsets are UTF-16 indexes into the string given.
 */
import { SaxesParser, type SaxesTagNS } from 'saxes';
import { SiardOcflError } from '../../errors.js';

export interface PlacedElement {
  /** local name */
  name: string;
  /** namespace prefix as written ("" when none), to write new children the same way */
  prefix: string;
  /** index of '<' of the start tag */
  start: number;
  /** index just after the start tag ('>'), where the content begins */
  contentStart: number;
  /** index of '<' of the end tag (= contentStart for an empty element written `<x/>`) */
  contentEnd: number;
  /** index just after the end tag */
  end: number;
  selfClosing: boolean;
  /** character data directly inside, entities resolved (SIARD's \u00XX escapes not) */
  text: string;
  children: PlacedElement[];
}

export function placedTree(xml: string, what: string): PlacedElement {
  const parser = new SaxesParser({ xmlns: true, position: true });
  const stack: PlacedElement[] = [];
  let root: PlacedElement | undefined;
  let failure: string | undefined;
  parser.on('error', (err) => (failure ??= err.message));
  parser.on('doctype', () => (failure ??= 'it has a DOCTYPE declaration'));
  parser.on('opentag', (tag: SaxesTagNS) => {
    const contentStart = parser.position;
    const el: PlacedElement = {
      name: tag.local,
      prefix: tag.prefix,
      start: xml.lastIndexOf('<', contentStart - 1),
      contentStart,
      contentEnd: contentStart,
      end: contentStart,
      selfClosing: tag.isSelfClosing,
      text: '',
      children: [],
    };
    if (stack.length > 0) stack[stack.length - 1]!.children.push(el);
    else root = el;
    stack.push(el);
  });
  const onText = (t: string): void => {
    if (stack.length > 0) stack[stack.length - 1]!.text += t;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', () => {
    const el = stack.pop()!;
    el.end = parser.position;
    el.contentEnd = el.selfClosing ? el.contentStart : xml.lastIndexOf('</', el.end - 1);
  });
  try {
    parser.write(xml).close();
  } catch (err) {
    failure ??= (err as Error).message;
  }
  if (failure !== undefined || !root)
    throw new SiardOcflError(`${what} is not well-formed XML: ${failure ?? 'no root element'}.`, { code: 'SIARD_METADATA', exitCode: 1 });
  return root;
}

export function childrenNamed(el: PlacedElement | undefined, name: string): PlacedElement[] {
  return el ? el.children.filter((c) => c.name === name) : [];
}

export function childNamed(el: PlacedElement | undefined, name: string): PlacedElement | undefined {
  return el?.children.find((c) => c.name === name);
}
