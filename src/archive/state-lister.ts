/** A PackageLister over the logical paths of an OCFL version (its state), for the SIARD reader's folder walks. */
import type { PackageLister } from '../siard/reader/unreferenced.js';

/** Folder listing over the logical paths of a version. */
export function stateLister(state: ReadonlyMap<string, string>): PackageLister {
  return {
    async files(folder) {
      const prefix = folder ? `${folder}/` : '';
      return [...state.keys()].filter((p) => p.startsWith(prefix)).map((p) => p.slice(prefix.length));
    },
    async subfolders(folder) {
      const prefix = folder ? `${folder}/` : '';
      const out = new Set<string>();
      for (const p of state.keys()) {
        if (!p.startsWith(prefix)) continue;
        const rest = p.slice(prefix.length);
        const slash = rest.indexOf('/');
        if (slash > 0) out.add(rest.slice(0, slash));
      }
      return [...out];
    },
  };
}
