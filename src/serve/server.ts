/**
 * The reading room: a read-only web application over a storage root (node:http, no framework).
 * Every page is a thin rendering (pages.ts) of what src/archive/ reads; every id, version, table,
 * row and path in a URL is looked up in the root, the object's inventory or the archive's
 * metadata, never joined to a disk path. Requests must carry the access token when one is set;
 * a server without one answers only requests addressed to a loopback name (no DNS rebinding).
 */
import { timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdirSync, realpathSync } from 'node:fs';
import http from 'node:http';
import { pipeline } from 'node:stream/promises';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { SiardOcflError } from '../errors.js';
import { openRoot } from '../ocfl/root.js';
import { messagePage, STYLE } from './pages.js';
import { HttpError, Room, type Reply } from './room.js';
import { ROUTES, type Route } from './routes.js';

export interface ReadingRoomOptions {
  root: string;
  host?: string;
  port?: number;
  /** required unless the host is a loopback address */
  token?: string;
  /** where access copies are built (outside the root); default DEFAULT_WORKSPACE */
  workspace?: string;
  /** tables of more rows than this are sorted and searched through an access copy; default COPY_FROM_ROWS */
  copyFrom?: number;
}

/** The reading room's default workspace: its access copies, in the system's temporary folder. */
export const DEFAULT_WORKSPACE = path.join(os.tmpdir(), 'siard-ocfl-reading-room');
/** Tables up to this many rows are sorted in memory and searched by a scan; larger ones through an access copy. */
export const COPY_FROM_ROWS = 200_000;

/** `p` with its symbolic links resolved as far as it exists (the rest of it joined as given). */
function realAsFarAsExists(p: string): string {
  const abs = path.resolve(p);
  if (existsSync(abs)) return realpathSync(abs);
  const parent = path.dirname(abs);
  return parent === abs ? abs : path.join(realAsFarAsExists(parent), path.basename(abs));
}

/** The workspace, made if needed; refused inside a folder root (the reading room writes nothing there). */
function workspaceOutside(root: string, workspace: string): string {
  if (!/^s3:\/\//.test(root)) {
    const rel = path.relative(realAsFarAsExists(root), realAsFarAsExists(workspace));
    if (rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel)))
      throw new SiardOcflError(`The workspace ${workspace} is inside the storage root ${root}; give one outside it.`, {
        code: 'USAGE',
        exitCode: 2,
      });
  }
  mkdirSync(workspace, { recursive: true, mode: 0o700 });
  return realpathSync(workspace);
}

export interface ReadingRoom {
  url: string;
  host: string;
  port: number;
  close(): Promise<void>;
}

const TOKEN_COOKIE = 'siard_ocfl_token';

const PAGE_HEADERS: Record<string, string> = {
  'Content-Type': 'text/html; charset=utf-8',
  // No script at all; styles from our own /style.css; framed by no one.
  'Content-Security-Policy':
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function sameToken(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function cookie(req: http.IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

/** Undefined when the request may go on; else the refusal sent. */
function refusal(req: http.IncomingMessage, url: URL, token: string | undefined, boundHost: string): Reply | undefined {
  if (token === undefined) {
    const name = (req.headers.host ?? '').replace(/:\d+$/, '');
    return isLoopback(name) || name === boundHost ? undefined : { status: 403, body: messagePage('Refused', 'Not a local address.') };
  }
  const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  const query = url.searchParams.get('token') ?? undefined;
  if (sameToken(query, token)) {
    // The token once in a URL becomes a cookie; the address bar and later links lose it.
    url.searchParams.delete('token');
    return {
      status: 303,
      headers: {
        Location: url.pathname + url.search,
        'Set-Cookie': `${TOKEN_COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`,
      },
      body: '',
    };
  }
  if (sameToken(bearer, token) || sameToken(cookie(req, TOKEN_COOKIE), token)) return undefined;
  return {
    status: 401,
    headers: { 'WWW-Authenticate': 'Bearer realm="siard-ocfl"' },
    body: messagePage('Access token needed', 'Open the address printed by siard-ocfl serve, with its token.'),
  };
}

async function answer(room: Room, req: http.IncomingMessage, url: URL): Promise<Reply> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return { status: 405, headers: { Allow: 'GET, HEAD' }, body: 'read-only\n' };
  if (url.pathname === '/style.css') return { headers: { 'Content-Type': 'text/css; charset=utf-8' }, body: STYLE };
  const route: Route | undefined = Object.hasOwn(ROUTES, url.pathname) ? ROUTES[url.pathname] : undefined;
  if (!route) throw new HttpError(404, `There is no page ${url.pathname}.`);
  const reply = await route(room, url.searchParams);
  return typeof reply === 'string' ? { body: reply } : reply;
}

function statusOf(err: unknown): number {
  if (err instanceof HttpError) return err.status;
  if (err instanceof SiardOcflError) {
    if (/^(NO_OBJECT|NO_VERSION|NO_SUCH_VERSION|SIARD_NO_TABLE|LOB_NOT_FOUND|LOB_MISSING|RESTORE_SOURCE)$/.test(err.code)) return 404;
    if (err.code === 'LOB_OUTSIDE' || err.code === 'LOB_INVALID') return 403;
    if (err.code === 'USAGE') return 400;
  }
  return 500;
}

async function send(res: http.ServerResponse, reply: Reply, head: boolean): Promise<void> {
  const headers = { ...(typeof reply.body === 'string' ? PAGE_HEADERS : {}), ...reply.headers };
  if (typeof reply.body === 'string') {
    res.writeHead(reply.status ?? 200, headers);
    res.end(head ? undefined : reply.body);
    return;
  }
  res.writeHead(reply.status ?? 200, headers);
  if (head) {
    if ('destroy' in reply.body && typeof reply.body.destroy === 'function') reply.body.destroy();
    res.end();
    return;
  }
  // pipeline: backpressure, and the body stopped when the client goes (a wait per chunk on 'drain'
  // or 'close' left a listener behind each time: thousands over a large LOB).
  await pipeline(reply.body, res);
}

async function handle(room: Room, req: http.IncomingMessage, res: http.ServerResponse, options: ReadingRoomOptions, host: string) {
  let url: URL;
  try {
    url = new URL(req.url ?? '/', 'http://reading-room');
  } catch {
    res.writeHead(400, PAGE_HEADERS).end(messagePage('Bad request', 'The address cannot be read.'));
    return;
  }
  const refused = refusal(req, url, options.token, host);
  if (refused) return send(res, refused, false);
  let reply: Reply;
  try {
    reply = await answer(room, req, url);
  } catch (err) {
    const status = statusOf(err);
    const sentence = status === 500 ? `The page could not be made: ${(err as Error).message}` : (err as Error).message;
    reply = { status, body: messagePage(status === 404 ? 'Not found' : status === 500 ? 'Error' : 'Refused', sentence) };
  }
  try {
    await send(res, reply, req.method === 'HEAD');
  } catch {
    // The reply broke off after its head (a LOB that fails its read, a client gone): close the connection.
    res.destroy();
  }
}

/** Starts serving `root`; resolves once listening. */
export async function startReadingRoom(options: ReadingRoomOptions): Promise<ReadingRoom> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopback(host) && options.token === undefined)
    throw new SiardOcflError(`Serving on ${host} needs an access token.`, { code: 'USAGE', exitCode: 2 });
  const root = await openRoot(options.root);
  const room = new Room(root, workspaceOutside(options.root, options.workspace ?? DEFAULT_WORKSPACE), options.copyFrom ?? COPY_FROM_ROWS);
  const server = http.createServer((req, res) => void handle(room, req, res, options, host));
  // A sort index of an access copy is built in one synchronous step (tens of seconds at millions of
  // rows on a busy machine): requests arriving meanwhile wait for it, not dropped after the default 60 s.
  server.headersTimeout = 10 * 60_000;
  server.requestTimeout = 10 * 60_000;
  server.listen(options.port ?? 8080, host);
  await Promise.race([once(server, 'listening'), once(server, 'error').then(([err]) => Promise.reject(err as Error))]);
  const port = (server.address() as AddressInfo).port;
  // Listed from the start, so that the first look at the root finds its list made or under way.
  room.startListing();
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}/`,
    host,
    port,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await room.closeAll();
    },
  };
}
