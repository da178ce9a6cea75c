/**
 * Paths written as URI references (a cell's LOB `file`, a METS FLocat, a lobFolder outside the
 * archive): each '/'-separated segment percent-encoded, so names with spaces, '#', '%' or
 * non-ASCII stay one valid reference. Only RFC 3986's unreserved characters stay as they are.
 */

/** One path segment, percent-encoded (also !'()*, which encodeURIComponent leaves). */
export function encodeUriSegment(segment: string): string {
  return encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** A relative '/'-separated path as a URI reference, segment by segment. */
export function encodeUriPath(relPath: string): string {
  return relPath.split('/').map(encodeUriSegment).join('/');
}
