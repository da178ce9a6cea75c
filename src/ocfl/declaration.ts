/**
 * The NAMASTE declarations that make a folder an OCFL storage root (`0=ocfl_1.1`) or an object
 * root (`0=ocfl_object_1.1`), and the OCFL version an inventory's `type` names. One module, so
 * that the root, the commit protocol, purge and info spell them alike.
 */

const ROOT_DECLARATION_PREFIX = '0=ocfl_';
const OBJECT_DECLARATION_PREFIX = '0=ocfl_object_';

/** The OCFL version this tool writes (an object or root of 1.0 is upgraded to it). */
export const CURRENT_OCFL_VERSION = '1.1';

/** The declaration file of an object of this OCFL version: its name and its text (E007). */
export function objectDeclaration(version: string): { name: string; text: string } {
  return { name: `${OBJECT_DECLARATION_PREFIX}${version}`, text: `ocfl_object_${version}\n` };
}

/** The declaration file of a storage root of this OCFL version: its name and its text (E080). */
export function rootDeclaration(version: string): { name: string; text: string } {
  return { name: `${ROOT_DECLARATION_PREFIX}${version}`, text: `ocfl_${version}\n` };
}

/** The OCFL version a storage root declaration names (`0=ocfl_1.0` -> 1.0); undefined for any other name. */
export function declaredRootVersion(name: string): string | undefined {
  return /^0=ocfl_(\d+\.\d+)$/.exec(name)?.[1];
}

/** Whether a file name is an object declaration. */
export function isObjectDeclaration(name: string): boolean {
  return name.startsWith(OBJECT_DECLARATION_PREFIX);
}

/** The OCFL version an object declaration names (`0=ocfl_object_1.0` -> 1.0). */
export function declaredObjectVersion(name: string): string {
  return name.slice(OBJECT_DECLARATION_PREFIX.length);
}

/** The OCFL version an inventory's `type` names (`https://ocfl.io/1.0/spec/#inventory` -> 1.0), or undefined. */
export function inventoryOcflVersion(type: string): string | undefined {
  return /^https:\/\/ocfl\.io\/(\d+\.\d+)\/spec\/#inventory$/.exec(type)?.[1];
}

/** Orders OCFL versions `1.0` < `1.1` < `1.10` (number by number). */
export function compareOcflVersions(a: string, b: string): number {
  const [am = 0, an = 0] = a.split('.').map(Number);
  const [bm = 0, bn = 0] = b.split('.').map(Number);
  return am - bm || an - bn;
}

/**
 * What an upgrade interrupted after its switch leaves, and how to finish it: an object whose root
 * inventory names a later OCFL version than its declaration (E038), or that declares both (E003).
 * `add`: the declaration the inventory names, to put in place first; `remove`: the others, after.
 * Undefined when there is nothing to finish, or nothing this tool may touch: no declaration at
 * all (an interrupted purge, never to be undone) or one naming a later version than the inventory.
 */
export function declarationToSettle(inventoryType: string, fileNames: string[]): { add?: string; remove: string[] } | undefined {
  const wanted = inventoryOcflVersion(inventoryType);
  const declared = fileNames.filter(isObjectDeclaration).map(declaredObjectVersion);
  if (wanted === undefined || declared.length === 0) return undefined;
  if (declared.some((v) => compareOcflVersions(v, wanted) > 0)) return undefined;
  if (declared.length === 1 && declared[0] === wanted) return undefined;
  const remove = declared.filter((v) => v !== wanted);
  return declared.includes(wanted) ? { remove } : { add: wanted, remove };
}
