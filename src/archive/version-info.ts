/** What the writer of a new object version may say of it: its message and user, and a new object's digest. */
import type { User } from '../ocfl/inventory/inventory.js';

export interface VersionInfoOptions {
  message?: string;
  user?: User;
  /** manifest digest of a new object: sha512 (default) or sha256 */
  digestAlgorithm?: 'sha512' | 'sha256';
}
