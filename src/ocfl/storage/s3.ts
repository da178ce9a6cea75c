/**
 * The S3 backend: a storage root at `s3://bucket/prefix` on any S3-compatible object store,
 * configured by the standard AWS variables (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID,
 * AWS_SECRET_ACCESS_KEY, AWS_REGION; AWS_S3_FORCE_PATH_STYLE=true for path-style addressing,
 * which most self-hosted stores need).
 *
 * Folders do not exist on an object store: a path is a "folder" while some key lies below it.
 * Reads are ranged GETs streamed with back-pressure; writes are single PUTs up to PART_SIZE and
 * multipart uploads above it (PART_SIZE x QUEUE bytes in memory at most, whatever the file's
 * size). Every key is written whole or not at all: readers see old or new bytes, never a mix.
 */
import { Readable, PassThrough } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
  type ListObjectsV2CommandOutput,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { SiardOcflError, UsageError } from '../../errors.js';
import { outlineFromKeys, type KeyPage } from './s3-outline.js';
import { assertPlainPath, describePath, type ConditionalPut, type ObjectStorePublish, type OutlineEntry } from './storage.js';
import type { ReadStorage, StorageEntry, StorageStat, StorageWalk, WritableFile, WriteStorage } from './storage.js';

/** Files up to this size are one PUT; larger ones are uploaded in parts of this size. */
const PART_SIZE = 8 * 1024 * 1024;
/** Parts of one multipart upload in flight at once. */
const QUEUE = 4;
/**
 * First-level names asked for in an outline's first page: a listing by '/' of 1,000 names read the
 * keys below them first (Ceph RGW: most of the outline of a root of 1,000 objects), so the first
 * objects waited for it.
 */
const FIRST_FOLDERS = 64;
/** Keys per DeleteObjects request (the S3 maximum). */
const DELETE_BATCH = 1000;

function notFound(location: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${location} does not exist.`), { code: 'ENOENT' });
}

function statusOf(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}

function isMissing(err: unknown): boolean {
  const name = (err as { name?: string }).name;
  return name === 'NoSuchKey' || name === 'NotFound' || statusOf(err) === 404;
}

/** An ETag without its quotes: RGW 16.2 honours If-Match only so (measured), and S3 accepts it too. */
function bareTag(etag: string | undefined): string {
  return (etag ?? '').replace(/^W\//, '').replace(/^"|"$/g, '');
}

export interface S3Location {
  bucket: string;
  prefix: string;
}

/** `s3://bucket/prefix/` -> bucket and prefix (no leading or trailing slash). */
function parseS3Url(url: string): S3Location {
  const m = /^s3:\/\/([^/]+)\/?(.*)$/i.exec(url);
  if (!m || !m[1]) throw new UsageError(`${url} is not an S3 location; write s3://bucket or s3://bucket/prefix.`, 'BAD_ROOT');
  const prefix = m[2]!.replace(/\/+$/, '');
  if (prefix.split('/').some((s) => s === '' || s === '.' || s === '..') && prefix !== '') {
    throw new UsageError(`${url}: the prefix must be plain '/'-separated names.`, 'BAD_ROOT');
  }
  return { bucket: m[1], prefix };
}

/** A client from the standard AWS variables; `retries: false` for conditional writes (see putConditional). */
export function clientFromEnvironment(retries = true): S3Client {
  // The SDK warns on Node 20 that its releases after January 2027 need Node 22; the version this
  // package locks works on Node 20, so the warning would only confuse every run of the CLI.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const endpoint = process.env.AWS_ENDPOINT_URL_S3 || process.env.AWS_ENDPOINT_URL || undefined;
  return new S3Client({
    ...(endpoint ? { endpoint } : {}),
    region: process.env.AWS_REGION || process.env.AWS_DEFAULT_REGION || 'us-east-1',
    forcePathStyle: /^(1|true|yes)$/i.test(process.env.AWS_S3_FORCE_PATH_STYLE ?? ''),
    // The SDK's default sends streamed bodies aws-chunked with a checksum trailer, which
    // S3-compatible stores such as Ceph RGW 16 refuse (411); checksums only where an API needs one.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...(retries ? {} : { maxAttempts: 1 }),
  });
}

export class S3Storage implements WriteStorage, ObjectStorePublish {
  readonly objectStore = true as const;
  readonly location: string;

  constructor(
    readonly client: S3Client,
    readonly bucket: string,
    readonly prefix: string,
    /** Conditional puts: no retries, so that an answer lost in transit is 'unknown', never a false 'changed'. */
    private readonly conditionalClient: S3Client = client,
  ) {
    this.location = `s3://${bucket}${prefix ? `/${prefix}` : ''}`;
  }

  static fromUrl(url: string): S3Storage {
    const { bucket, prefix } = parseS3Url(url);
    return new S3Storage(clientFromEnvironment(), bucket, prefix, clientFromEnvironment(false));
  }

  /** The same bucket and client, below another prefix. */
  at(prefix: string): S3Storage {
    return new S3Storage(this.client, this.bucket, prefix, this.conditionalClient);
  }

  key(rel: string): string {
    assertPlainPath(rel);
    if (rel === '' || rel === '.') return this.prefix;
    return this.prefix ? `${this.prefix}/${rel}` : rel;
  }

  private folderPrefix(rel: string): string {
    const k = this.key(rel);
    return k === '' ? '' : `${k}/`;
  }

  /** Turns an SDK failure into a sentence naming the place, keeping ENOENT recognisable. */
  private failure(err: unknown, rel: string, doing: string): Error {
    const name = (err as { name?: string }).name ?? 'Error';
    if (name === 'NoSuchBucket')
      return new UsageError(`The bucket ${this.bucket} of ${this.location} does not exist.`, 'NOT_A_STORAGE_ROOT', err);
    if (isMissing(err)) return notFound(describePath(this, rel));
    const detail = err instanceof S3ServiceException ? `${err.name} (HTTP ${statusOf(err) ?? '?'})` : (err as Error).message;
    return new SiardOcflError(`Cannot ${doing} ${describePath(this, rel)}: ${detail}.`, { code: 'S3_ERROR', exitCode: 2, cause: err });
  }

  async stat(rel: string): Promise<StorageStat | undefined> {
    if (rel !== '' && rel !== '.') {
      try {
        const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.key(rel) }));
        return { isFile: true, isDirectory: false, size: head.ContentLength ?? 0 };
      } catch (err) {
        if (!isMissing(err)) throw this.failure(err, rel, 'read');
      }
    }
    const page = await this.listPage(this.folderPrefix(rel), undefined, undefined, 1, rel);
    return (page.Contents?.length ?? 0) + (page.CommonPrefixes?.length ?? 0) > 0
      ? { isFile: false, isDirectory: true, size: 0 }
      : undefined;
  }

  private async listPage(
    prefix: string,
    delimiter: string | undefined,
    token: string | undefined,
    max: number | undefined,
    rel: string,
    startAfter?: string,
  ): Promise<ListObjectsV2CommandOutput> {
    try {
      return await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: prefix,
          ...(delimiter ? { Delimiter: delimiter } : {}),
          ...(token ? { ContinuationToken: token } : {}),
          ...(max ? { MaxKeys: max } : {}),
          ...(startAfter !== undefined ? { StartAfter: startAfter } : {}),
        }),
      );
    } catch (err) {
      throw this.failure(err, rel, 'list');
    }
  }

  /** Every key below a prefix, page by page (1,000 a request), with sizes. */
  private async *keys(
    prefix: string,
    delimiter: string | undefined,
    rel: string,
  ): AsyncGenerator<{ key?: string; size?: number; folder?: string }> {
    let token: string | undefined;
    do {
      const page = await this.listPage(prefix, delimiter, token, undefined, rel);
      for (const c of page.Contents ?? []) yield { key: c.Key!, size: c.Size ?? 0 };
      for (const p of page.CommonPrefixes ?? []) yield { folder: p.Prefix! };
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async list(rel: string): Promise<StorageEntry[]> {
    const prefix = this.folderPrefix(rel);
    const out: StorageEntry[] = [];
    for await (const k of this.keys(prefix, '/', rel)) {
      if (k.folder !== undefined) {
        const name = k.folder.slice(prefix.length, -1);
        if (name) out.push({ name, isFile: false, isDirectory: true, kind: 'dir' });
      } else {
        const name = k.key!.slice(prefix.length);
        // A zero-byte "folder/" marker some tools write is no file of ours.
        if (name) out.push({ name, isFile: true, isDirectory: false, kind: 'file' });
      }
    }
    if (out.length === 0) throw notFound(describePath(this, rel));
    return out;
  }

  /**
   * The first-level names come in pages of a listing by '/' (1,000 a page); the folders of each page
   * are outlined from pages of keys (s3-outline.ts) as soon as it comes, while the next is asked for:
   * under 0003 a root of 10,000 objects has some 3,700 first-level folders, four pages one after another.
   */
  async outline(rel: string, depth: number, onEntries?: (entries: OutlineEntry[]) => void | Promise<void>): Promise<OutlineEntry[]> {
    const prefix = this.folderPrefix(rel);
    // What the last page told holds every request for more keys until it settles (ReadStorage.outline).
    let held: Promise<void> | undefined;
    const page: KeyPage = async (startAfter, max) => {
      while (held) await held;
      const listed = await this.listPage(prefix, undefined, undefined, max, rel, startAfter);
      const contents = listed.Contents ?? [];
      return { keys: contents.map((c) => c.Key!), sizes: contents.map((c) => c.Size ?? 0), truncated: listed.IsTruncated === true };
    };
    const out: OutlineEntry[] = [];
    const tell = (entries: OutlineEntry[]): Promise<void> | undefined => {
      const hold = onEntries?.(entries);
      if (!(hold instanceof Promise)) return undefined;
      const settled = hold.then(
        () => {},
        () => {},
      );
      held = settled;
      void settled.then(() => {
        if (held === settled) held = undefined;
      });
      return settled;
    };
    const told = async (entries: OutlineEntry[]) => {
      out.push(...entries);
      if (entries.length > 0) await tell(entries);
    };
    const below: Array<Promise<void>> = [];
    let token: string | undefined;
    let found = false;
    do {
      // A small first page: its folders' objects are asked for while the gateway lists the rest.
      const listed = await this.listPage(prefix, '/', token, token === undefined ? FIRST_FOLDERS : undefined, rel);
      // A zero-byte "folder/" marker some tools write is no file of ours.
      const files = (listed.Contents ?? []).map((c) => c.Key!.slice(prefix.length)).filter((name) => name !== '');
      const folders = (listed.CommonPrefixes ?? []).map((p) => p.Prefix!.slice(prefix.length, -1)).filter((name) => name !== '');
      found ||= files.length + folders.length > 0;
      await told(files.map((path) => ({ path, isDirectory: false })));
      if (depth <= 1) await told(folders.map((path) => ({ path, isDirectory: true })));
      else if (folders.length > 0) {
        const outlined = outlineFromKeys(prefix, folders, depth, page, tell).then((entries) => void out.push(...entries));
        outlined.catch(() => {}); // awaited below; not an unhandled rejection while the next page is listed
        below.push(outlined);
      }
      token = listed.IsTruncated ? listed.NextContinuationToken : undefined;
    } while (token);
    await Promise.all(below);
    if (!found) throw notFound(describePath(this, rel));
    return out;
  }

  /** Page after page of keys (1,000 a request, with their sizes), summed as they come. */
  async bytesUnder(rel: string): Promise<number> {
    const prefix = this.folderPrefix(rel);
    let bytes = 0;
    for await (const k of this.keys(prefix, undefined, rel)) bytes += k.size ?? 0;
    return bytes;
  }

  async walk(rel: string): Promise<StorageWalk> {
    const prefix = this.folderPrefix(rel);
    const result: StorageWalk = { files: [], emptyDirs: [], links: [] };
    for await (const k of this.keys(prefix, undefined, rel)) {
      const relative = k.key!.slice(prefix.length);
      if (relative === '' || relative.endsWith('/')) continue; // folder markers
      result.files.push({ relative, size: k.size! });
    }
    // Sorted as the filesystem walk sorts (UTF-16 order); the store lists in UTF-8 byte order.
    result.files.sort((a, b) => (a.relative < b.relative ? -1 : a.relative > b.relative ? 1 : 0));
    return result;
  }

  readStream(rel: string, options: { start?: number; end?: number; highWaterMark?: number } = {}): Readable {
    const out = new PassThrough({ highWaterMark: options.highWaterMark ?? 1 << 20 });
    const range = options.start !== undefined || options.end !== undefined ? `bytes=${options.start ?? 0}-${options.end ?? ''}` : undefined;
    this.client
      .send(new GetObjectCommand({ Bucket: this.bucket, Key: this.key(rel), ...(range ? { Range: range } : {}) }))
      .then((res) => {
        const body = res.Body as Readable;
        if (out.destroyed) {
          body.destroy(); // the reader gave up before the answer came: free the connection
          return;
        }
        body.on('error', (err) => out.destroy(err));
        out.on('close', () => body.destroy());
        body.pipe(out);
      })
      .catch((err) => out.destroy(this.failure(err, rel, 'read')));
    return out;
  }

  async readFile(rel: string): Promise<Buffer> {
    return (await this.getWithTag(rel, true))!.bytes;
  }

  async getWithTag(rel: string, required = false): Promise<{ bytes: Buffer; etag: string; lastModified: Date } | undefined> {
    try {
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.key(rel) }));
      const bytes = Buffer.from(await res.Body!.transformToByteArray());
      return { bytes, etag: bareTag(res.ETag), lastModified: res.LastModified ?? new Date(0) };
    } catch (err) {
      if (isMissing(err) && !required) return undefined;
      throw this.failure(err, rel, 'read');
    }
  }

  async openWrite(rel: string, options: { exclusive?: boolean } = {}): Promise<WritableFile> {
    const key = this.key(rel);
    const held: Buffer[] = [];
    let heldBytes = 0;
    let upload: { stream: PassThrough; done: Promise<unknown>; abort: () => Promise<void> } | undefined;
    let closed = false;
    const startUpload = () => {
      const stream = new PassThrough({ highWaterMark: PART_SIZE });
      const u = this.multipart(key, stream);
      const done = u.done();
      done.catch(() => {}); // observed in close()
      upload = { stream, done, abort: () => u.abort() };
      for (const b of held.splice(0)) stream.write(b);
    };
    const self = this;
    if (options.exclusive && (await this.stat(rel))?.isFile) {
      throw Object.assign(new Error(`${describePath(this, rel)} exists.`), { code: 'EEXIST' });
    }
    return {
      async write(chunk) {
        if (!upload) {
          held.push(Buffer.from(chunk));
          heldBytes += chunk.byteLength;
          if (heldBytes > PART_SIZE) startUpload();
          return;
        }
        if (!upload.stream.write(chunk)) await new Promise<void>((resolve) => upload!.stream.once('drain', resolve));
      },
      async close() {
        if (closed) return;
        closed = true;
        try {
          if (!upload) {
            const body = Buffer.concat(held.splice(0));
            if (options.exclusive) {
              const r = await self.putIfAbsent(rel, body);
              // 'unknown' (no answer, or a 5xx): ours only if what is there now is what we sent.
              const ours = r.ok || (r.reason === 'unknown' && (await self.getWithTag(rel))?.bytes.equals(body) === true);
              if (!ours) throw Object.assign(new Error(`${describePath(self, rel)} exists.`), { code: 'EEXIST' });
            } else await self.putBytes(rel, body);
          } else {
            upload.stream.end();
            await upload.done;
          }
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw err;
          throw self.failure(err, rel, 'write');
        }
      },
      async abort() {
        if (closed) return;
        closed = true;
        held.length = 0;
        if (upload) {
          upload.stream.destroy();
          await upload.abort().catch(() => {});
        }
      },
    };
  }

  async mkdir(): Promise<void> {
    // No folders on an object store.
  }

  async remove(rel: string): Promise<void> {
    const keys: string[] = [];
    if (rel !== '' && rel !== '.') keys.push(this.key(rel));
    for await (const k of this.keys(this.folderPrefix(rel), undefined, rel)) keys.push(k.key!);
    for (let i = 0; i < keys.length; i += DELETE_BATCH) {
      const batch = keys.slice(i, i + DELETE_BATCH);
      try {
        const res = await this.client.send(
          new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }),
        );
        const failed = (res.Errors ?? []).filter((e) => e.Code !== 'NoSuchKey');
        if (failed.length > 0) throw new Error(`${failed.length} keys were not deleted (${failed[0]!.Code}: ${failed[0]!.Key})`);
      } catch (err) {
        throw this.failure(err, rel, 'delete');
      }
    }
  }

  /**
   * Aborts every multipart upload begun below a folder and never completed (a writer killed while
   * uploading): their parts take space in the store but are no key, so listings never see them.
   */
  async abortUploads(rel: string): Promise<number> {
    const prefix = this.folderPrefix(rel);
    let aborted = 0;
    let marker: { KeyMarker?: string; UploadIdMarker?: string } = {};
    for (;;) {
      let page;
      try {
        page = await this.client.send(new ListMultipartUploadsCommand({ Bucket: this.bucket, Prefix: prefix, ...marker }));
        for (const u of page.Uploads ?? []) {
          await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: u.Key!, UploadId: u.UploadId! }));
          aborted++;
        }
      } catch (err) {
        if (isMissing(err)) return aborted; // NoSuchUpload: aborted meanwhile
        throw this.failure(err, rel, 'clean up uploads below');
      }
      if (!page.IsTruncated) return aborted;
      marker = { KeyMarker: page.NextKeyMarker, UploadIdMarker: page.NextUploadIdMarker };
    }
  }

  async putBytes(rel: string, bytes: Uint8Array): Promise<void> {
    try {
      await this.client.send(
        new PutObjectCommand({ Bucket: this.bucket, Key: this.key(rel), Body: bytes, ContentLength: bytes.byteLength }),
      );
    } catch (err) {
      throw this.failure(err, rel, 'write');
    }
  }

  private async putConditional(
    rel: string,
    bytes: Uint8Array,
    condition: { IfNoneMatch: string } | { IfMatch: string },
  ): Promise<ConditionalPut> {
    try {
      const res = await this.conditionalClient.send(
        new PutObjectCommand({ Bucket: this.bucket, Key: this.key(rel), Body: bytes, ContentLength: bytes.byteLength, ...condition }),
      );
      return { ok: true, etag: bareTag(res.ETag) };
    } catch (err) {
      const status = statusOf(err);
      if (status === 412) return { ok: false, reason: 'IfNoneMatch' in condition ? 'exists' : 'changed' };
      // 409 (a conditional write raced another on AWS), 5xx (RGW answers a lost race with 500),
      // a reset connection: the write may or may not have happened. The caller reads and decides.
      if (status === 409 || status === undefined || status >= 500) return { ok: false, reason: 'unknown' };
      throw this.failure(err, rel, 'write');
    }
  }

  putIfAbsent(rel: string, bytes: Uint8Array): Promise<ConditionalPut> {
    return this.putConditional(rel, bytes, { IfNoneMatch: '*' });
  }

  /**
   * Sent with the ETag unquoted, which Ceph RGW 16 needs (it compares a quoted one wrongly and
   * always answers 412). A store that wants it quoted instead answers 412 too: when the key still
   * has that ETag (the condition does hold), the same request is sent once more, quoted.
   */
  async putIfMatch(rel: string, bytes: Uint8Array, etag: string): Promise<ConditionalPut> {
    const bare = bareTag(etag);
    const first = await this.putConditional(rel, bytes, { IfMatch: bare });
    if (first.ok || first.reason !== 'changed') return first;
    const now = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.key(rel) })).catch(() => undefined);
    if (!now || bareTag(now.ETag) !== bare) return first;
    return this.putConditional(rel, bytes, { IfMatch: `"${bare}"` });
  }

  /** A multipart upload of a stream: PART_SIZE x QUEUE bytes in memory at most, no parts left behind on failure. */
  private multipart(key: string, body: Readable): Upload {
    return new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: body },
      partSize: PART_SIZE,
      queueSize: QUEUE,
      leavePartsOnError: false,
    });
  }

  async upload(source: ReadStorage, from: string, to: string, size: number): Promise<void> {
    try {
      if (size <= PART_SIZE) {
        await this.putBytes(to, await source.readFile(from));
        return;
      }
      await this.uploadParts(this.key(to), partsOf(source.readStream(from, { highWaterMark: PART_SIZE })));
    } catch (err) {
      if (err instanceof SiardOcflError || err instanceof UsageError) throw err;
      throw this.failure(err, to, 'write');
    }
  }

  /**
   * A multipart upload of parts made elsewhere, QUEUE of them in flight; aborted on failure (no
   * parts left). The SDK's uploader copied a stream's chunks together for every part, even chunks
   * of exactly a part (put of 4 files of 32 MiB: 0.3 s of this thread's CPU).
   */
  private async uploadParts(key: string, parts: AsyncIterable<{ partNumber: number; body: Buffer }>): Promise<void> {
    const { UploadId } = await this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key }));
    const done: Array<{ PartNumber: number; ETag: string | undefined }> = [];
    const iterator = parts[Symbol.asyncIterator]();
    let failure: { error: unknown } | undefined;
    const lane = async (): Promise<void> => {
      while (!failure) {
        try {
          const next = await iterator.next(); // calls queue up: each part is read once, in order
          if (next.done) return;
          const { partNumber: PartNumber, body } = next.value;
          const part = { Bucket: this.bucket, Key: key, UploadId, PartNumber, Body: body, ContentLength: body.length };
          done.push({ PartNumber, ETag: (await this.client.send(new UploadPartCommand(part))).ETag });
        } catch (error) {
          failure ??= { error };
        }
      }
    };
    await Promise.all(Array.from({ length: QUEUE }, lane));
    try {
      if (failure) throw failure.error;
      done.sort((a, b) => a.PartNumber - b.PartNumber);
      const upload = { Bucket: this.bucket, Key: key, UploadId, MultipartUpload: { Parts: done } };
      await this.client.send(new CompleteMultipartUploadCommand(upload));
    } catch (err) {
      await iterator.return?.(undefined);
      await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId })).catch(() => {});
      throw err;
    }
  }
}

/** A stream's bytes in parts of exactly PART_SIZE (the last one shorter); chunks of a whole part go on uncopied. */
async function* partsOf(stream: Readable): AsyncGenerator<{ partNumber: number; body: Buffer }> {
  let partNumber = 0;
  let part: Buffer | undefined;
  let filled = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let at = 0;
    if (!part && chunk.length === PART_SIZE) {
      yield { partNumber: ++partNumber, body: chunk };
      continue;
    }
    while (at < chunk.length) {
      part ??= Buffer.allocUnsafe(PART_SIZE);
      const n = chunk.copy(part, filled, at);
      filled += n;
      at += n;
      if (filled === PART_SIZE) {
        yield { partNumber: ++partNumber, body: part };
        part = undefined;
        filled = 0;
      }
    }
  }
  if (filled > 0 || partNumber === 0) yield { partNumber: ++partNumber, body: (part ?? Buffer.alloc(0)).subarray(0, filled) };
}
