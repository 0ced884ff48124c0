/**
 * XML documents as a small element tree with resolved namespaces, through fast-xml-parser with no
 * entity expansion: a document type declaration is refused (no e-invoice has one, and its entities
 * are how XML bombs and external entities get in), the five predefined entities and character
 * references are the only ones decoded.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { UnreadableDocument } from '../document';
import { byteOrderMark, decodeBytes } from '../encoding';

export interface XmlElement {
  /** The local name, without its prefix. */
  name: string;
  namespace: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  /** The element's own text (trimmed), '' when it has none. */
  text: string;
}

/** Deeper than any business document nests. */
const MAX_DEPTH = 100;

const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function unescape(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (whole, ref: string) => {
    if (ref[0] !== '#') return PREDEFINED[ref.toLowerCase()] ?? whole;
    const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

/** The XML's text: its byte-order mark, else the encoding its declaration names, else UTF-8. */
export function decodeXml(bytes: Uint8Array): string {
  if (byteOrderMark(bytes)) return decodeBytes(bytes).text;
  const declared = /^<\?xml[^>]*\bencoding\s*=\s*["']([\w.:-]+)["']/.exec(new TextDecoder('latin1').decode(bytes.subarray(0, 200)))?.[1];
  if (declared) {
    try {
      return new TextDecoder(declared.toLowerCase() as ConstructorParameters<typeof TextDecoder>[0]).decode(bytes);
    } catch {
      // an encoding TextDecoder does not know: read the bytes as they are
    }
  }
  return decodeBytes(bytes).text;
}

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  removeNSPrefix: false,
  processEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  commentPropName: false,
  maxNestedTags: MAX_DEPTH,
});

type Ordered = Record<string, unknown>;

/** The parser's ordered output as elements; its depth is bounded by the parser's MAX_DEPTH. */
function toElement(node: Ordered, scope: Record<string, string>): XmlElement | null {
  const tag = Object.keys(node).find((k) => k !== ':@');
  if (!tag || tag === '#text') return null;
  const raw = (node[':@'] ?? {}) as Record<string, string>;
  const namespaces = { ...scope };
  const attributes: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'xmlns') namespaces[''] = value;
    else if (key.startsWith('xmlns:')) namespaces[key.slice(6)] = value;
    else attributes[key.slice(key.indexOf(':') + 1)] = unescape(String(value));
  }
  const colon = tag.indexOf(':');
  const prefix = colon >= 0 ? tag.slice(0, colon) : '';
  const children: XmlElement[] = [];
  const texts: string[] = [];
  for (const child of (node[tag] ?? []) as Ordered[]) {
    if ('#text' in child) texts.push(String(child['#text']));
    else {
      const element = toElement(child, namespaces);
      if (element) children.push(element);
    }
  }
  return { name: tag.slice(colon + 1), namespace: namespaces[prefix] ?? '', attributes, children, text: unescape(texts.join(' ')).trim() };
}

/** The root element of an XML document; unreadable when it is not well-formed or declares a DTD. */
export function parseXml(bytes: Uint8Array): XmlElement {
  const text = decodeXml(bytes);
  if (!text.trim()) throw new UnreadableDocument('the file is empty');
  if (/<!DOCTYPE/i.test(text)) throw new UnreadableDocument('the XML declares a document type (DTD); e-invoices have none, and rowsmith does not expand its entities');
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new UnreadableDocument(`not well-formed XML: ${valid.err.msg} (line ${valid.err.line}, column ${valid.err.col})`);
  let ordered: Ordered[];
  try {
    ordered = parser.parse(text) as Ordered[];
  } catch (error) {
    const message = (error as Error).message;
    if (/nested tags/i.test(message)) throw new UnreadableDocument(`the XML nests elements more than ${MAX_DEPTH} deep; no invoice needs that many`);
    throw new UnreadableDocument(`not well-formed XML: ${message}`);
  }
  for (const node of ordered) {
    const root = toElement(node, {});
    if (root) return root;
  }
  throw new UnreadableDocument('the XML has no root element');
}

/** Children (all when several match) along a path of local names; a step `A|B` takes either. */
export function all(element: XmlElement | null | undefined, ...path: string[]): XmlElement[] {
  let current = element ? [element] : [];
  for (const step of path) {
    const names = step.split('|');
    current = current.flatMap((e) => e.children.filter((c) => names.includes(c.name)));
  }
  return current;
}

export function first(element: XmlElement | null | undefined, ...path: string[]): XmlElement | null {
  return all(element, ...path)[0] ?? null;
}

/** The text at a path, null when absent or empty. */
export function textAt(element: XmlElement | null | undefined, ...path: string[]): string | null {
  const found = first(element, ...path);
  return found && found.text ? found.text.replace(/\s+/g, ' ') : null;
}
