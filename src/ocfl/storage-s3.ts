/** The S3 backend of the storage interfaces (see storage.ts). */
import { UsageError } from '../errors.js';
import type { RootStorage } from './storage.js';

export class S3Storage {
  static fromUrl(url: string): RootStorage {
    throw new UsageError(`${url}: storage roots on S3 are not supported yet.`, 'NOT_SUPPORTED');
  }
}
