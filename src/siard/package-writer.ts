/**
 * Where writeSiard puts the ZIP entries of the archive: one `.siard` file (SinglePackage, the
 * default) or a segmented SIARD file `.siard.1` ... `.siard.z` (segments/segmented-package.ts,
 * `--max-siard-bytes`). The writer names folders, tables and their XSDs in order and hands over the
 * header last; the package decides which file each entry goes to.
 */
import { HEADER_DEFLATE_LEVEL } from './header-deflate.js';
import type { OutputFile, OutputSink, WrittenFile } from './output-sink.js';
import { Spill } from './segments/spill.js';
import { writableOf } from './writable.js';
import type { SegmentCut } from './zip/segmented-deflate.js';
import { ZipWriter, type ZipCheckpoint } from './zip/writer.js';
import type { SegmentSums } from './zip/segmented-deflate.js';
import type { PackageCut } from './package-cut.js';

/** One table: its XML streamed, its XSD known after the rows (array sizes) or before (`xsdBefore`). */
export interface PackageTable {
  /** ZIP entry of the table XML, e.g. content/schema0/table2/table2.xml */
  xmlName: string;
  xml: AsyncIterable<string | Buffer | SegmentCut>;
  /** ZIP entry of the XSD */
  xsdName: string;
  /** the XSD as known before the rows; exact unless `xsdDependsOnRows` */
  xsdBefore: string;
  xsdDependsOnRows: boolean;
  /** the final XSD, called once the XML has been consumed */
  xsd: () => string;
  /**
   * The XML may fail midway (a provisional table, database-source.ts) and the table be written
   * again: nothing of it may reach the archive until it is complete. Only asked of a package
   * whose `takesBack` is true.
   */
  takeBack?: boolean;
  /**
   * At each cut in `xml` (segmented-deflate.ts), once the bytes before it are durable: where the
   * package stands, for a resumable export's journal (SinglePackage only).
   */
  onCut?: (cut: PackageCut, state: unknown) => Promise<void>;
}

/** The `header/` entries of a package; metadata.xml depends on the messageDigest of the file it goes into. */
export interface PackageHeader {
  metadataXsd: Buffer;
  metadataXml: (messageDigest: string) => string;
}

export interface WrittenPackageFile extends WrittenFile {
  /** SHA-256 of the bytes before `header/` (the messageDigest stated in this file's metadata.xml) */
  messageDigest: string;
}

export interface WrittenPackage {
  /** the `.siard`, or the segments in order (`.1`, `.2`, ..., `.z`) */
  files: WrittenPackageFile[];
  /** things to say about the result (a segment over its size limit) */
  warnings: string[];
}

export interface SiardPackageWriter {
  /** whether addTable honours `takeBack` */
  readonly takesBack: boolean;
  addDirectory(name: string): Promise<void>;
  addTable(table: PackageTable): Promise<void>;
  finish(header: PackageHeader): Promise<WrittenPackage>;
  abort(): Promise<void>;
  /** Stops writing but leaves the file as it is, for a resumable export to continue (docs/resume.md). */
  suspend?(): Promise<void>;
}

export interface PackageZipOptions {
  compressionLevel?: number;
  mtime: Date;
}

export interface SinglePackageOptions extends PackageZipOptions {
  /** where a table taken back (`takeBack`) waits, compressed, beyond 8 MB */
  scratchDir: string;
}

/**
 * The archive as one `.siard`, exactly as before segmentation existed: entries in call order, the
 * table XML deflated as it streams.
 */
export class SinglePackage implements SiardPackageWriter {
  readonly takesBack = true;
  /** entries written before the last checkpoint */
  private checkpointed = 0;
  /** a resumable export's held-back table data goes to this file, durable at each cut */
  private spillFile: string | undefined;
  /** the held-back data of the table an interrupted run was taking back, continued */
  private continuedAside: { spill: Spill; sums: SegmentSums } | undefined;

  private constructor(
    private readonly relPath: string,
    private readonly out: Awaited<ReturnType<OutputSink['openFile']>>,
    private readonly zip: ZipWriter,
    private readonly scratchDir: string,
    /** continues an interrupted export: folders it wrote are not written again */
    private readonly resumed = false,
  ) {
    this.checkpointed = zip.entries.length;
  }

  /**
   * The package of an interrupted export, continued in `out` (reopened at the end of its last whole
   * table, or at a cut inside the next) by `zip`; `checkpointed`: entries of the whole tables;
   * `aside`: the held-back data of the table in progress, continued.
   */
  static resumed(
    relPath: string,
    out: OutputFile,
    zip: ZipWriter,
    scratchDir: string,
    at: { checkpointed: number; aside?: { spill: Spill; sums: SegmentSums } },
  ): SinglePackage {
    const pkg = new SinglePackage(relPath, out, zip, scratchDir, true);
    pkg.checkpointed = at.checkpointed;
    pkg.continuedAside = at.aside;
    return pkg;
  }

  /** Held-back table data of a resumable export goes to `file`, made durable at each cut. */
  holdBackIn(file: string): void {
    this.spillFile = file;
  }

  /**
   * Where the archive stands after the entries written so far, its bytes durable (the file
   * fsynced): what a resumable export journals at the end of a table (docs/resume.md).
   */
  async checkpoint(): Promise<ZipCheckpoint> {
    const mark = await this.zip.checkpoint(this.checkpointed);
    this.checkpointed += mark.entries.length;
    if (!this.out.sync) throw new Error(`The output of ${this.relPath} cannot be made durable, so the export cannot be resumed.`);
    await this.out.sync();
    return mark;
  }

  static async open(sink: OutputSink, relPath: string, options: SinglePackageOptions): Promise<SinglePackage> {
    const out = await sink.openFile(relPath, { digests: [] });
    const zip = await ZipWriter.create(writableOf(out), { compressionLevel: options.compressionLevel, mtime: options.mtime });
    return new SinglePackage(relPath, out, zip, options.scratchDir);
  }

  addDirectory(name: string): Promise<void> {
    if (this.resumed && this.zip.hasEntry(name)) return Promise.resolve();
    return this.zip.addDirectory(name);
  }

  async addTable(table: PackageTable): Promise<void> {
    const onCut = table.onCut;
    if (table.takeBack) {
      // Deflated aside, then copied in: the same bytes as streaming it, and nothing written if it fails.
      const continued = this.continuedAside;
      this.continuedAside = undefined;
      const spill = continued?.spill ?? (this.spillFile ? await Spill.durable(this.spillFile) : new Spill(this.scratchDir));
      try {
        const cut = onCut && (async (sums: SegmentSums, state: unknown) => onCut(await this.asideCut(spill, sums), state));
        const sums = await this.zip.compressSegmentedAside(table.xml, (chunk) => spill.append(chunk), cut, continued?.sums);
        await this.zip.addCompressed(table.xmlName, sums, spill.read());
      } finally {
        // a durable spill stays until the table's line is journaled (tableJournaled): a run killed or
        // stopped by a full disk before it goes on from the spill's last cut
        await (continued || this.spillFile ? spill.close() : spill.dispose());
      }
    } else
      await this.zip.addSegmented(table.xmlName, table.xml, {
        ...(onCut
          ? {
              onCut: async (c, state) => {
                await this.sync();
                const entries = this.zip.recordsSince(this.checkpointed);
                await onCut({ zip: { offset: c.offset, sha256: c.sha256, entries, open: { entry: c.entry, sums: c.sums } } }, state);
              },
            }
          : {}),
      });
    await this.zip.addBuffer(table.xsdName, table.xsd());
  }

  /** The journal holds the line of the table just written: its held-back data (a durable spill) is not needed any more. */
  async tableJournaled(): Promise<void> {
    if (this.spillFile) await Spill.remove(this.spillFile);
  }

  /** A cut in a table taken back: the `.siard` as it stands (durable) and the held-back bytes made durable. */
  private async asideCut(spill: Spill, sums: SegmentSums): Promise<PackageCut> {
    const zip = await this.zip.checkpoint(this.checkpointed);
    await this.sync();
    return { zip, aside: { bytes: spill.size, sha256: await spill.sync(), sums } };
  }

  private async sync(): Promise<void> {
    if (!this.out.sync) throw new Error(`The output of ${this.relPath} cannot be made durable, so the export cannot be resumed.`);
    await this.out.sync();
  }

  async finish(header: PackageHeader): Promise<WrittenPackage> {
    const mark = await this.zip.markDigestEnd();
    await writeHeader(this.zip, header, mark.sha256);
    await this.zip.close();
    const written = await this.out.close();
    return { files: [{ ...written, relPath: this.relPath, messageDigest: mark.sha256 }], warnings: [] };
  }

  async abort(): Promise<void> {
    await this.zip.abort().catch(() => undefined);
    await this.out.abort().catch(() => undefined);
  }

  /** The ZIP writer stops; the file stays with its bytes (the sink closes it without removing it). */
  async suspend(): Promise<void> {
    await this.zip.abort().catch(() => undefined);
  }
}

/** The header entries, in the order every package uses: `header/`, `header/siardversion/2.2/`, metadata.xsd, metadata.xml. */
export async function writeHeader(zip: ZipWriter, header: PackageHeader, messageDigest: string): Promise<void> {
  await zip.addDirectory('header/');
  await zip.addDirectory('header/siardversion/2.2/');
  await zip.addBuffer('header/metadata.xsd', header.metadataXsd, { level: HEADER_DEFLATE_LEVEL });
  await zip.addBuffer('header/metadata.xml', header.metadataXml(messageDigest), { level: HEADER_DEFLATE_LEVEL });
}
