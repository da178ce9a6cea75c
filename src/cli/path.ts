/** `siard-ocfl path`: the object root path of each id under extension 0003 (or a root's own layout). */
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { loadLayout0003, type Layout0003Config } from '../ocfl/layout/extensions.js';
import { readLayoutConfig } from '../ocfl/layout/registry.js';
import type { StorageLayout } from '../ocfl/layout/storage-layout.js';
import { parseCount, printJson } from './common.js';

interface PathOptions {
  stdin?: boolean;
  root?: string;
  digestAlgorithm?: string;
  tupleSize?: number;
  numberOfTuples?: number;
  json?: boolean;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** One id per line; a final newline ends the last line rather than adding an empty id; CRLF accepted. */
async function readStdinIds(): Promise<string[]> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  let text: string;
  try {
    text = strictUtf8.decode(Buffer.concat(chunks));
  } catch {
    throw new UsageError('Standard input is not valid UTF-8; object ids must be well-formed Unicode.', 'INVALID_OBJECT_ID');
  }
  if (text === '') return [];
  const lines = text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/**
 * Node decodes the command line as UTF-8 and silently turns bytes that are not UTF-8 into U+FFFD.
 * On Linux the raw bytes are in /proc/self/cmdline: refuse instead of mapping a replaced id.
 */
function assertArgumentsAreUtf8(): void {
  let raw: Buffer;
  try {
    raw = readFileSync('/proc/self/cmdline');
  } catch {
    return; // not Linux: nothing more can be checked
  }
  for (const arg of raw.toString('latin1').split('\0')) {
    try {
      strictUtf8.decode(Buffer.from(arg, 'latin1'));
    } catch {
      throw new UsageError('A command-line argument is not valid UTF-8; object ids must be well-formed Unicode.', 'INVALID_OBJECT_ID');
    }
  }
}

async function chooseLayout(options: PathOptions): Promise<StorageLayout> {
  const given: Partial<Layout0003Config> = {};
  if (options.digestAlgorithm !== undefined) given.digestAlgorithm = options.digestAlgorithm;
  if (options.tupleSize !== undefined) given.tupleSize = options.tupleSize;
  if (options.numberOfTuples !== undefined) given.numberOfTuples = options.numberOfTuples;
  if (options.root !== undefined) {
    if (Object.keys(given).length > 0) {
      throw new UsageError('Give either --root or the layout options (--digest-algorithm, --tuple-size, --number-of-tuples), not both.');
    }
    return readLayoutConfig(options.root);
  }
  return loadLayout0003(given);
}

export function register(program: Command): void {
  program
    .command('path')
    .description('print the object root path of each object id (storage layout extension 0003), one per line')
    .argument('[object-id...]', 'object ids (use -- before ids that start with "-")')
    .option('--stdin', 'also read object ids from standard input, one per line (UTF-8)')
    .option('--root <root>', 'use the layout and configuration of this storage root')
    .option('--digest-algorithm <algorithm>', 'digest of the id (default sha256; md5, sha1, sha512, blake2b-512, ...)')
    .option('--tuple-size <n>', 'characters per directory level (default 3)', parseCount('--tuple-size'))
    .option('--number-of-tuples <n>', 'directory levels (default 3)', parseCount('--number-of-tuples'))
    .option('--json', 'print a JSON document: the layout configuration and each id with its path')
    .action(async (args: string[], options: PathOptions) => {
      assertArgumentsAreUtf8();
      const layout = await chooseLayout(options);
      const ids = [...args, ...(options.stdin ? await readStdinIds() : [])];
      if (ids.length === 0) throw new UsageError('Give at least one object id (as an argument or with --stdin).');
      // Map every id before printing anything: a bad id leaves no partial output.
      const paths = ids.map((id) => layout.objectPath(id));
      if (options.json) {
        printJson({ layout: layout.config, objects: ids.map((id, i) => ({ id, path: paths[i] })) });
      } else {
        process.stdout.write(paths.map((p) => p + '\n').join(''));
      }
    });
}
