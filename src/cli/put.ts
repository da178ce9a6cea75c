/** `siard-ocfl put`: any folder as a new version of an object (its state is exactly the folder's files). */
import type { Command } from 'commander';
import { promises as fsp, statSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../errors.js';
import { addLocalFiles } from '../ocfl/commit/add-local-files.js';
import { openRoot } from '../ocfl/root.js';
import {
  addVersionInfoOptions,
  checkObjectId,
  addWorkspaceOption,
  contentDigest,
  printJson,
  rootOptions,
  versionInfo,
  type VersionInfoCliOptions,
  type WorkspaceCliOptions,
} from './common.js';
import { createProgress } from './progress.js';

interface PutOptions extends VersionInfoCliOptions, WorkspaceCliOptions {
  root: string;
  id: string;
  digest?: string;
  fixity?: string;
  json?: boolean;
}

/** A file of the folder; its absolute path is made when asked for (a million held as strings cost ~64 MB). */
class SourceFile {
  size = 0;

  constructor(
    private readonly folder: string,
    readonly logicalPath: string,
  ) {}

  get absolute(): string {
    return path.join(this.folder, this.logicalPath);
  }
}

/** Regular files under `dir`, sorted by logical path; symbolic links and special files are refused. */
async function listFiles(dir: string): Promise<SourceFile[]> {
  const out: SourceFile[] = [];
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  const walk = async (abs: string, rel: string): Promise<void> => {
    // Names read as bytes: a name that is not UTF-8 is refused rather than silently replaced.
    for (const raw of await fsp.readdir(abs, { withFileTypes: true, encoding: 'buffer' })) {
      let name: string;
      try {
        name = utf8.decode(raw.name);
      } catch {
        throw new UsageError(`A file name in ${abs} is not valid UTF-8 (${raw.name.toString('latin1')}); logical paths must be Unicode.`);
      }
      const entry = { name, isDirectory: () => raw.isDirectory(), isFile: () => raw.isFile() };
      const childAbs = path.join(abs, entry.name);
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(childAbs, childRel);
      else if (entry.isFile()) out.push(new SourceFile(folder, childRel));
      else throw new UsageError(`${childAbs} is not a regular file or folder (a link or a device); put only takes plain files.`);
    }
  };
  const st = await fsp.stat(dir).catch(() => undefined);
  if (!st?.isDirectory()) throw new UsageError(`${path.resolve(dir)} is not a folder.`);
  const folder = path.resolve(dir);
  await walk(folder, '');
  // Sizes asked on this thread, one after another: through libuv's pool, even 32 at once, each
  // stat cost four times the CPU (show's measure in storage/fs.ts statMany).
  for (const f of out) f.size = statSync(f.absolute).size;
  return out.sort((a, b) => (a.logicalPath < b.logicalPath ? -1 : a.logicalPath > b.logicalPath ? 1 : 0));
}

export function register(program: Command): void {
  addWorkspaceOption(
    addVersionInfoOptions(
      program
        .command('put')
        .description("store a folder as a new version of an object: the version holds exactly the folder's files")
        .argument('<dir>', 'folder whose files become the version')
        .requiredOption('--root <root>', 'OCFL storage root')
        .requiredOption('--id <object-id>', 'object id'),
    ),
  )
    .option('--digest <algorithm>', 'content digest of a new object: sha512 (default) or sha256')
    .option('--fixity <algorithms>', 'comma-separated fixity algorithms, e.g. sha256,md5')
    .option('--json', 'print the result as JSON')
    .action(async (dir: string, options: PutOptions) => {
      checkObjectId(options.id);
      const digestAlgorithm = contentDigest(options.digest);
      const version = versionInfo(options);
      const files = await listFiles(dir);
      const root = await openRoot(options.root, rootOptions(options));
      const fixity = options.fixity
        ? options.fixity
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : [];
      const staged = await root.startVersion(options.id, { digestAlgorithm, fixityAlgorithms: fixity });
      const progress = createProgress({ json: options.json });
      let stored = 0;
      try {
        await staged.clear();
        progress.start(`put ${options.id}`, 'files', { bytes: files.reduce((n, f) => n + f.size, 0), count: files.length });
        await addLocalFiles(staged, files, (added) => {
          if (added.stored) stored++;
          progress.bytes(added.size);
          progress.count();
        });
        progress.stop();
      } catch (err) {
        progress.stop();
        await staged.abort();
        throw err;
      }
      const result = await staged.commit(version);
      if (options.json) {
        printJson({ id: result.id, version: result.version, files: files.length, stored });
      } else {
        process.stdout.write(`Committed ${result.version} of object "${result.id}": ${files.length} files, ${stored} stored new.\n`);
      }
    });
}
