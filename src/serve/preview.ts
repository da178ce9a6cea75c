/**
 * How a LOB is sent: the type is found from its first bytes (magic numbers, `file-type`), never
 * from a file name or a mimeType the archive declares. Only raster images, PDF and plain text are
 * shown inline; anything else (SVG, HTML, XML, scripts, executables, unknown bytes) goes out as an
 * attachment of type application/octet-stream. Text is sent as text/plain, so an HTML or SVG LOB
 * that is valid UTF-8 shows as its source, never as a page. Every LOB response forbids scripts and
 * sniffing (headers in `lobHeaders`).
 */
import { fileTypeFromBuffer } from 'file-type';

/** Bytes read ahead to decide: what file-type needs for the formats we show. */
export const SNIFF_BYTES = 4100;

const INLINE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/bmp', 'image/avif', 'application/pdf']);

export interface Preview {
  /** Content-Type to send */
  type: string;
  /** whether the browser may show it (else an attachment) */
  inline: boolean;
}

/** Decides from the first bytes of a LOB (up to SNIFF_BYTES). */
export async function previewOf(head: Uint8Array): Promise<Preview> {
  const found = head.length > 0 ? await fileTypeFromBuffer(head) : undefined;
  if (found) return INLINE_TYPES.has(found.mime) ? { type: found.mime, inline: true } : { type: 'application/octet-stream', inline: false };
  if (isText(head)) return { type: 'text/plain; charset=utf-8', inline: true };
  return { type: 'application/octet-stream', inline: false };
}

/** UTF-8 without NUL; the last 3 bytes may be a character cut by the sniffing window. */
function isText(head: Uint8Array): boolean {
  if (head.includes(0)) return false;
  for (let cut = 0; cut <= Math.min(3, head.length); cut++) {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, head.length - cut));
      return true;
    } catch {
      // a multi-byte character cut at the end of the window: try shorter
    }
  }
  return false;
}

/** No script, no plugin but PDF's viewer, no framing by others; the bytes typed as sent. */
const LOB_CSP = "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; object-src 'none'; frame-ancestors 'self'; sandbox";

/** Headers of a LOB response: `download` forces an attachment of octet-stream whatever the bytes. */
export function lobHeaders(preview: Preview, download: boolean, fileName: string, size: number | undefined): Record<string, string> {
  const asAttachment = download || !preview.inline;
  const headers: Record<string, string> = {
    'Content-Type': asAttachment ? 'application/octet-stream' : preview.type,
    'Content-Disposition': `${asAttachment ? 'attachment' : 'inline'}; filename="${fileName.replace(/[^A-Za-z0-9._-]/g, '_')}"`,
    'Content-Security-Policy': preview.type === 'application/pdf' && !asAttachment ? LOB_CSP.replace('; sandbox', '') : LOB_CSP,
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
  };
  if (size !== undefined) headers['Content-Length'] = String(size);
  return headers;
}
