/**
 * The deflate level of a package's header entries (metadata.xsd, metadata.xml), whatever level the
 * table data uses: they are small and written once, so level 6 costs nothing measurable, and a
 * segment's room for its header (--max-siard-bytes) stays what it was before table data went to
 * level 1.
 */
import zlib from 'node:zlib';

export const HEADER_DEFLATE_LEVEL = zlib.constants.Z_DEFAULT_COMPRESSION;
