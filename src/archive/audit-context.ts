/**
 * What the steps of one object's audit share: the object's place and how findings are added
 * (ObjectAuditContext), and, once it is opened, the version audited with its state, expected
 * digests and content files (OpenedObject). Each step takes these and passes its own result on.
 */
import type { OcflObjectReader } from '../ocfl/object/object.js';
import type { OcflStorageRoot } from '../ocfl/root.js';
import { joinPath } from '../ocfl/storage/storage.js';
import type { HashPool } from '../ocfl/validate/hash-pool.js';
import type { AuditContentFiles } from './audit-content-files.js';
import type { AuditFinding, AuditFindings, AuditSeverity } from './audit-findings.js';
import type { AuditOptions } from './audit-options.js';
import type { ObjectAuditSummary } from './audit-summary.js';
import type { ExpectedDigests } from './expected-digests.js';
import { storedFile } from './stored.js';

export class ObjectAuditContext {
  /** the object's id once read (its path until then, or the id asked for) */
  object: string;
  readonly summary: ObjectAuditSummary;

  constructor(
    readonly root: OcflStorageRoot,
    readonly objectPath: string,
    expectedId: string | undefined,
    readonly options: AuditOptions,
    private readonly findings: AuditFindings,
    readonly pool: HashPool,
  ) {
    this.object = expectedId ?? objectPath;
    this.summary = { id: this.object, objectPath, version: '', contentFiles: 0, contentBytes: 0, siards: [], errors: 0, warnings: 0 };
  }

  add(severity: AuditSeverity, code: string, message: string, where: Partial<AuditFinding> = {}): void {
    this.findings.add({ severity, code, message, object: this.object, ...where });
  }

  /** A content path as a path of the storage root. */
  stored(contentPath: string): string {
    return joinPath(this.objectPath, contentPath);
  }

  /** A content file (a .siard, a zipped LOB folder) as a source of random-access bytes. */
  siardAt(contentPath: string) {
    return storedFile(this.root.storage, this.stored(contentPath));
  }
}

/** The object opened at the version audited. */
export class OpenedObject {
  constructor(
    readonly reader: OcflObjectReader,
    readonly version: string,
    readonly state: ReadonlyMap<string, string>,
    /** expected digests of every content file: manifest and fixity */
    readonly expected: ExpectedDigests,
    /** the content files (numbered in manifest order), their sizes and what the read found */
    readonly files: AuditContentFiles,
  ) {}

  /** The content path of a logical path of the version, or undefined. */
  contentOf(logicalPath: string): string | undefined {
    const digest = this.state.get(logicalPath);
    return digest === undefined ? undefined : this.reader.manifestPaths(digest)?.[0];
  }

  /** The number of a content file present in storage, or -1. */
  presentFile(contentPath: string | undefined): number {
    const id = contentPath === undefined ? -1 : this.files.find(contentPath);
    return id >= 0 && this.files.isPresent(id) ? id : -1;
  }

  algorithmsOf(id: number): string[] {
    return this.files.algorithmsOf(id, this.expected.of(this.files.path(id)));
  }
}
