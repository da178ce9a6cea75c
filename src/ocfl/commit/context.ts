/**
 * What publishing a version and recovering after a crash work on: shared by the filesystem
 * protocol (commit.ts) and the object-store one (commit/object-store.ts).
 */
import type { RootStorage, Storage } from '../storage/storage.js';

export interface CommitContext {
  /** A local folder (published by the protocol of commit.ts) or an object store (commit/object-store.ts). */
  root: RootStorage;
  workspace: Storage;
  /** Throws when the writer's lock was lost; checked again right before an object store's switch. */
  assertHeld?: () => void;
  /** Staging folder of the object in the workspace. */
  stage: string;
  /** Object root relative to the storage root. */
  objectPath: string;
  id: string;
}

/** One thing recoverObject did; `path` is relative to the workspace (staging) or the storage root. */
export interface RecoveryAction {
  kind: 'removed-staging' | 'finished-sidecar' | 'finished-declaration' | 'rolled-back-version' | 'aborted-uploads';
  path: string;
}
