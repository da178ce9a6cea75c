/**
 * Zipped LOB segment folders (seed 004, S_8.2-1, S_8.3-1, S_8.4-1): every file the LOB writer puts
 * in `[db]_lobseg_[h]/...` becomes an entry of `[db]_lobseg_[h].zip` instead, the entry named by
 * the path inside the folder (`content/schema0/table1/lob2/record7.bin`). The cell `file`
 * references do not change; a reader finds the entry by the rule in docs/segmented-siard.md
 * ("Zipped LOB segment folders").
 *
 * The lobseg layout fills its folders strictly in order, so one ZIP is open at a time: opening a
 * file in folder h+1 closes the ZIP of folder h. The ZIP is streamed through the wrapped sink (so
 * it lands in a folder or straight in a staged OCFL version), entries in the ZIP64 form of our
 * writer. The digests a caller asks for are computed over the entry's own (uncompressed) bytes:
 * they are the LOB's cell digest. Every other file passes to the wrapped sink unchanged.
 */
import { PassThrough } from 'node:stream';
import { Hashes, type OpenFileOptions, type OutputFile, type OutputSink, type WrittenFile } from './output-sink.js';
import { writableOf } from './writable.js';
import { ZipWriter } from './zip/writer.js';

export interface LobsegZipOptions {
  /** deflate the entries (default false: LOB bytes are mostly compressed already, and stored entries can be read at an offset) */
  compress?: boolean;
  /** modification time of the entries (default: now) */
  mtime?: Date;
}

/** The folder and entry of a path in a lobseg folder of `dbName`, else undefined. */
function lobsegFolderOf(relPath: string, dbName: string): { folder: string; entry: string } | undefined {
  const slash = relPath.indexOf('/');
  if (slash < 0) return undefined;
  const folder = relPath.slice(0, slash);
  if (!folder.startsWith(`${dbName}_lobseg_`) || !/^\d+$/.test(folder.slice(dbName.length + 8))) return undefined;
  return { folder, entry: relPath.slice(slash + 1) };
}

interface OpenZip {
  folder: string;
  file: OutputFile;
  zip: ZipWriter;
  entryOpen: boolean;
}

export class LobsegZipSink implements OutputSink {
  private current: OpenZip | undefined;
  private readonly done = new Set<string>();
  /** the ZIP files written, in order */
  readonly zips: WrittenFile[] = [];

  constructor(
    private readonly inner: OutputSink,
    private readonly dbName: string,
    private readonly options: LobsegZipOptions = {},
  ) {}

  get scratchDir(): string | undefined {
    return this.inner.scratchDir;
  }

  async openFile(relPath: string, options: OpenFileOptions = {}): Promise<OutputFile> {
    const place = lobsegFolderOf(relPath, this.dbName);
    if (!place) return this.inner.openFile(relPath, options);
    const zip = await this.zipFor(place.folder);
    if (zip.entryOpen) throw new Error(`Cannot write ${relPath}: another file of ${place.folder}.zip is still being written.`);
    return this.openEntry(zip, place.entry, options);
  }

  /** The ZIP of `folder`, opened now when it is the next folder (the one before is finished). */
  private async zipFor(folder: string): Promise<OpenZip> {
    if (this.current?.folder === folder) return this.current;
    if (this.done.has(folder)) throw new Error(`Cannot add to ${folder}.zip: it is already closed (LOB folders must be filled in order).`);
    await this.finishZips();
    const file = await this.inner.openFile(`${folder}.zip`);
    const zip = await ZipWriter.create(writableOf(file), { mtime: this.options.mtime });
    this.current = { folder, file, zip, entryOpen: false };
    return this.current;
  }

  private async openEntry(zip: OpenZip, entry: string, options: OpenFileOptions): Promise<OutputFile> {
    const hashes = new Hashes(options.digests ?? []);
    const body = new PassThrough({ highWaterMark: 1 << 20 });
    const added = zip.zip.addStream(entry, body, { compress: this.options.compress ?? false, mtime: this.options.mtime });
    added.catch(() => undefined); // awaited in close(); a failure also shows in write()
    let failure: Error | undefined;
    added.catch((err: Error) => (failure = err));
    let size = 0;
    zip.entryOpen = true;
    const relPath = `${zip.folder}/${entry}`;
    return {
      async write(chunk: Uint8Array): Promise<void> {
        if (failure) throw failure;
        hashes.update(chunk);
        size += chunk.length;
        if (!body.write(chunk)) {
          await new Promise<void>((resolve, reject) => {
            body.once('drain', resolve);
            added.catch(reject);
          });
        }
      },
      async close(): Promise<WrittenFile> {
        body.end();
        await added;
        zip.entryOpen = false;
        return { relPath, size, digests: hashes.digests() };
      },
      async abort(): Promise<void> {
        zip.entryOpen = false;
        body.destroy(new Error(`writing ${relPath} was given up`));
        await added.catch(() => undefined);
      },
    };
  }

  /** Closes the open ZIP (its central directory written); call once every LOB is written. */
  async finishZips(): Promise<void> {
    const open = this.current;
    if (!open) return;
    this.current = undefined;
    this.done.add(open.folder);
    await open.zip.close();
    this.zips.push(await open.file.close());
  }

  async commit(): Promise<void> {
    await this.finishZips();
    await this.inner.commit();
  }

  async abort(): Promise<void> {
    const open = this.current;
    this.current = undefined;
    if (open) {
      await open.zip.abort().catch(() => undefined);
      await open.file.abort().catch(() => undefined);
    }
    await this.inner.abort();
  }
}
