/**
 * ZIP record layouts (PKWARE APPNOTE 6.3.x) shared by the writer and the reader's checks.
 * Only what SIARD needs: store (0) and deflate (8), ZIP64, UTF-8 names, data descriptors.
 */

export const SIG_LOCAL_HEADER = 0x04034b50;
export const SIG_DATA_DESCRIPTOR = 0x08074b50;
export const SIG_CENTRAL_HEADER = 0x02014b50;
export const SIG_ZIP64_EOCD = 0x06064b50;
export const SIG_ZIP64_LOCATOR = 0x07064b50;
export const SIG_EOCD = 0x06054b50;

export const METHOD_STORE = 0;
export const METHOD_DEFLATE = 8;

/** General purpose flag bit 3: crc and sizes follow the data in a data descriptor. */
export const FLAG_DATA_DESCRIPTOR = 0x0008;
/** General purpose flag bit 11: name is UTF-8. */
export const FLAG_UTF8 = 0x0800;

/** 4.5 (ZIP64) is needed to extract; made by: 3 = Unix (so external attributes carry modes). */
export const VERSION_ZIP64 = 45;
export const VERSION_MADE_BY = (3 << 8) | VERSION_ZIP64;

export const EXTRA_ZIP64 = 0x0001;
export const MAX_UINT32 = 0xffffffff;
export const MAX_UINT16 = 0xffff;

/** The local file header before its name and extra field. */
export const LOCAL_HEADER_FIXED_SIZE = 30;

/** DOS date and time of `date` taken in UTC (so archives do not depend on the machine's zone). */
export function dosDateTime(date: Date): { time: number; date: number } {
  let year = date.getUTCFullYear();
  let d = date;
  if (year < 1980) {
    d = new Date(Date.UTC(1980, 0, 1));
    year = 1980;
  } else if (year > 2107) {
    d = new Date(Date.UTC(2107, 11, 31, 23, 59, 58));
    year = 2107;
  }
  return {
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | Math.floor(d.getUTCSeconds() / 2),
    date: ((year - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
  };
}

/** Writes a non-negative safe integer as an unsigned 64-bit little-endian value. */
export function writeUInt64LE(buffer: Buffer, value: number, offset: number): void {
  buffer.writeBigUInt64LE(BigInt(value), offset);
}
