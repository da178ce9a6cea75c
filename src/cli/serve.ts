/**
 * `siard-ocfl serve`: the reading room, a read-only web application over a storage root
 * (src/serve/). The first line on stdout names the address; it runs until interrupted.
 */
import type { Command } from 'commander';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { UsageError } from '../errors.js';
import { COPY_FROM_ROWS, DEFAULT_WORKSPACE, startReadingRoom } from '../serve/server.js';
import { parseCount } from './common.js';

interface ServeCliOptions {
  root: string;
  host: string;
  port: number;
  token?: string;
  workspace?: string;
  accessCopyRows: number;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|::1)$/;

export function register(program: Command): void {
  program
    .command('serve')
    .description(
      'serve a read-only web application over a storage root (folder or s3://): its objects, versions and files, and the ' +
        'databases inside (tables, rows, LOB previews and downloads, CSV); binds 127.0.0.1 unless --host says otherwise, ' +
        'and any other address needs an access token',
    )
    .requiredOption('--root <root>', 'OCFL storage root')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <n>', 'port to listen on (0: a free one)', parseCount('--port'), 8080)
    .option(
      '--token <token>',
      'access token every request must carry (generated and printed when another host than a loopback one is given)',
    )
    .option(
      '--workspace <dir>',
      `where access copies of large tables are built and kept (SQLite files, outside the root; one per table, kept until ` +
        `the object's version changes; default ${DEFAULT_WORKSPACE})`,
    )
    .option(
      '--access-copy-rows <n>',
      'tables of more rows are sorted, filtered and searched through an access copy built on first use (smaller ones in memory ' +
        'and by a scan)',
      parseCount('--access-copy-rows'),
      COPY_FROM_ROWS,
    )
    .action(async (options: ServeCliOptions) => {
      if (options.port > 65535) throw new UsageError(`Option --port needs a port number (0 to 65535), not ${options.port}.`);
      let token = options.token;
      let generated = false;
      if (token === undefined && !LOOPBACK.test(options.host)) {
        token = randomBytes(24).toString('base64url');
        generated = true;
      }
      if (token !== undefined && token.length < 8) throw new UsageError('Option --token needs a token of at least 8 characters.');
      const room = await startReadingRoom({
        root: options.root,
        host: options.host,
        port: options.port,
        copyFrom: options.accessCopyRows,
        ...(token ? { token } : {}),
        ...(options.workspace !== undefined ? { workspace: options.workspace } : {}),
      });
      process.stdout.write(`Serving ${options.root} at ${room.url}\n`);
      if (generated) process.stdout.write(`Access token (shown once): ${token}\nOpen ${room.url}?token=${token}\n`);
      else if (token !== undefined) process.stdout.write(`Open ${room.url}?token=<your token>\n`);
      await Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM')]);
      await room.close();
    });
}
