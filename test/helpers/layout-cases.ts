/**
 * One object id and, for each of the seven layouts, a configuration and the object root the
 * extension document gives that id, worked out here independently of src/ocfl/layout/: by hand
 * from the documents (the id is 0010's first example, `druid:gh875jh5489`), and with node:crypto
 * for the hashing layouts. Shared by the per-layout tests (layout-end-to-end, layout-verbs).
 */
import { createHash } from 'node:crypto';

export const ID = 'druid:gh875jh5489';
const WITHOUT_PREFIX = 'gh875jh5489';
const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
export const tuples = (digest: string, size: number, count: number) =>
  Array.from({ length: count }, (_, i) => digest.slice(i * size, (i + 1) * size));

export interface LayoutCase {
  extensionName: string;
  config: Record<string, unknown>;
  /** The object root of ID, from the extension document. */
  expected: string;
}

/** sha256 of ID, which the hashing layouts cut into tuples. */
export const D = sha256(ID);

export const LAYOUT_CASES: LayoutCase[] = [
  { extensionName: '0002-flat-direct-storage-layout', config: {}, expected: ID },
  // 0003: the percent-encoded id (':' is %3a) under three 3-character tuples of its sha256.
  { extensionName: '0003-hash-and-id-n-tuple-storage-layout', config: {}, expected: [...tuples(D, 3, 3), 'druid%3agh875jh5489'].join('/') },
  // 0004 shortened: two 2-character tuples, then the rest of the digest.
  {
    extensionName: '0004-hashed-n-tuple-storage-layout',
    config: { tupleSize: 2, numberOfTuples: 2, shortObjectRoot: true },
    expected: [...tuples(D, 2, 2), D.slice(4)].join('/'),
  },
  { extensionName: '0006-flat-omit-prefix-storage-layout', config: { delimiter: ':' }, expected: WITHOUT_PREFIX },
  // 0007 defaults: the first 9 characters of "gh875jh5489" in tuples of 3, then the whole of it.
  { extensionName: '0007-n-tuple-omit-prefix-storage-layout', config: {}, expected: 'gh8/75j/h54/gh875jh5489' },
  // 0010's Example 1 maps this very id to gh/875/jh/5489; fullIdentifierAsObjectRoot adds the id's folder.
  {
    extensionName: '0010-differential-n-tuple-omit-prefix-storage-layout',
    config: { fullIdentifierAsObjectRoot: true },
    expected: 'gh/875/jh/5489/gh875jh5489',
  },
  {
    extensionName: '0012-hash-and-no-prefix-id-n-tuple-storage-layout',
    config: { delimiters: [':'] },
    expected: [...tuples(sha256(WITHOUT_PREFIX), 3, 3), WITHOUT_PREFIX].join('/'),
  },
];

/** The layout on S3 (Ceph RGW): 0007 with tuples of 2, so the first 8 characters of "gh875jh5489" in tuples of 2, then the whole of it. */
export const S3_LAYOUT_CASE: LayoutCase = {
  extensionName: '0007-n-tuple-omit-prefix-storage-layout',
  config: { tupleSize: 2, numberOfTuples: 4 },
  expected: 'gh/87/5j/h5/gh875jh5489',
};
