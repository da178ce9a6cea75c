/**
 * A received SIARD package as a source: re-written whole (re-segmented), its types already SIARD
 * types. Not a restore target: restore reads SIARD, it does not write it.
 */
import { isSiardFileName } from '../../siard/siard-file-name.js';
import { baseName, type Dialect } from '../dialect.js';

export const siardDialect: Dialect = {
  name: 'siard',
  product: 'SIARD package',
  forms: ['a .siard file'],
  kind: 'package',
  server: false,
  accepts: isSiardFileName,
  archiveName: baseName,
  async openSource(spec, o) {
    const { SiardSource } = await import('./siard-source.js');
    return SiardSource.open(spec, o.acceptDigestMismatch ? { acceptDigestMismatch: true } : {});
  },
};
