/** The bytes the byte-level JSON reader (large-json.ts) looks for, and what it shares with JSON.parse's rules. */

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const OPEN_OBJECT = 0x7b;
export const CLOSE_OBJECT = 0x7d;
export const OPEN_ARRAY = 0x5b;
export const CLOSE_ARRAY = 0x5d;
export const SLASH = 0x2f;

export function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Strict UTF-8: bytes that are not UTF-8 are a TypeError, as for a whole file. */
export const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Sets a member as JSON.parse does: "__proto__" is an ordinary own property, never the prototype. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}
