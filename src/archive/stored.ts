/**
 * Files of an OCFL object as the SIARD reader takes them: a local path where the storage is a
 * local folder (yauzl reads it by descriptor), else a ByteSource of ranged reads through the
 * storage (an object store).
 */
import type { ByteSource } from '../siard/zip/reader.js';
import { describePath, type ReadStorage } from '../ocfl/storage/storage.js';

export async function storedFile(storage: ReadStorage, rel: string): Promise<string | ByteSource> {
  if (storage.localPath) return storage.localPath(rel);
  const st = await storage.stat(rel);
  const name = describePath(storage, rel);
  if (!st?.isFile) throw Object.assign(new Error(`${name} does not exist.`), { code: 'ENOENT' });
  return { name, size: st.size, readRange: (start, end) => storage.readStream(rel, { start, end }) };
}
