/**
 * The canonical bytes of an inventory (keys and path lists sorted, two-space JSON, an empty fixity
 * left out) written the obvious way, through one JSON.stringify of a sorted copy: the oracle the
 * piecewise writers (src/ocfl/inventory/large-json.ts, inventory/chunks.ts) are held to.
 */
import type { Inventory } from '../../src/ocfl/inventory/inventory.js';

export function referenceBytes(inv: Inventory): Buffer {
  const sortMap = (m: Record<string, string[]>) =>
    Object.fromEntries(
      Object.keys(m)
        .sort()
        .map((k) => [k, [...m[k]!].sort()]),
    );
  const out: Record<string, unknown> = {};
  if (inv.contentDirectory) out.contentDirectory = inv.contentDirectory;
  out.digestAlgorithm = inv.digestAlgorithm;
  if (inv.fixity && Object.keys(inv.fixity).length > 0)
    out.fixity = Object.fromEntries(
      Object.keys(inv.fixity)
        .sort()
        .map((a) => [a, sortMap(inv.fixity![a]!)]),
    );
  out.head = inv.head;
  out.id = inv.id;
  out.manifest = sortMap(inv.manifest);
  out.type = inv.type;
  out.versions = Object.fromEntries(
    Object.keys(inv.versions)
      .sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)))
      .map((name) => {
        const v = inv.versions[name]!;
        const version: Record<string, unknown> = { created: v.created };
        if (v.message !== undefined) version.message = v.message;
        version.state = sortMap(v.state);
        if (v.user) version.user = Object.fromEntries(Object.entries(v.user).sort(([a], [b]) => (a < b ? -1 : 1)));
        return [name, version];
      }),
  );
  return Buffer.from(JSON.stringify(out, null, 2));
}
