/**
 * A storage from a location a user names: `s3://bucket/prefix` (an S3-compatible object store,
 * configured by the standard AWS variables, see storage/s3.ts) or a local folder.
 */
import { FileSystemStorage } from './fs.js';
import type { RootStorage } from './storage.js';

export function isObjectStoreUrl(location: string): boolean {
  return /^s3:\/\//i.test(location);
}

export async function openStorage(location: string): Promise<RootStorage> {
  if (isObjectStoreUrl(location)) {
    // Loaded only when asked for: the AWS SDK is large, and most runs use local folders.
    const { S3Storage } = await import('./s3.js');
    return S3Storage.fromUrl(location);
  }
  return new FileSystemStorage(location);
}
