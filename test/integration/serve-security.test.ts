/**
 * The reading room lets no one in where they don't belong, through the built command line: URLs
 * with `..`, `%2e%2e`, absolute and content paths reach nothing outside the object's logical
 * files; a symbolic link planted in a folder root is not followed; a loopback server answers only
 * loopback names; any other bind needs the token (generated and printed once, or given), and every
 * request without it is refused; nothing is written to the root.
 */
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';
import { startServe, type Served } from '../helpers/serve.js';
import { ID, makeServeFixture, type ServeFixture } from '../helpers/serve-fixture.js';
import { tempDir } from '../helpers/tmp.js';

const SECRET = 'secret outside the root: 4c0ffee';
let work: string;
let fx: ServeFixture;
let served: Served;
let before: string;

/** Every file and folder of a tree with size and modification time. */
function snapshot(dir: string): string {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const full = path.join(d, name);
      const st = statSync(full);
      out.push(`${path.relative(dir, full)}\t${st.size}\t${st.mtimeMs}`);
      if (st.isDirectory()) walk(full);
    }
  };
  walk(dir);
  return out.join('\n');
}

test.before(async () => {
  work = tempDir('siard-ocfl-serve-security-');
  fx = await makeServeFixture(work);
  writeFileSync(path.join(work, 'secret.txt'), SECRET);
  before = snapshot(fx.root);
  served = await startServe(['--root', fx.root, '--port', '0']);
});

/** A request sent exactly as written (fetch would normalise `..` away), with optional headers. */
function raw(base: string, target: string, headers: Record<string, string> = {}, method = 'GET') {
  const url = new URL(base);
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: target, method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const id = encodeURIComponent(ID);

const HOSTILE_TARGETS = [
  '/../../../../etc/passwd',
  '/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
  '/..%2f..%2f..%2fetc%2fpasswd',
  `/file?id=${id}&v=v1&path=../../../../etc/passwd`,
  `/file?id=${id}&v=v1&path=%2e%2e%2f%2e%2e%2f%2e%2e%2fsecret.txt`,
  `/file?id=${id}&v=v1&path=/etc/passwd`,
  `/file?id=${id}&v=v1&path=v1/content/source.siard`,
  `/file?id=${id}&v=v1&path=source_lobseg_0/../source.siard`,
  `/file?id=${id}&v=..%2f..&path=source.siard`,
  `/file?id=..%2f..%2f..%2fetc&path=passwd`,
  `/object?id=%2e%2e%2f%2e%2e`,
  `/table?id=${id}&s=main&t=..%2f..%2fpeople`,
  `/lob?id=${id}&s=main&t=docs&r=1&p=..%2f..%2fc3`,
  `/lob?id=${id}&s=main&t=docs&r=../1&p=c3`,
  `/row?id=${id}&s=main&t=docs&r=-1`,
  `/table?id=${id}&s=main&t=docs&page=0`,
];

for (const target of HOSTILE_TARGETS) {
  test(`refused without reaching a file: ${target}`, async (t) => {
    const r = await raw(served.url, target);
    t.true(r.status === 400 || r.status === 404, `${r.status}`);
    t.false(r.body.includes('root:'));
    t.false(r.body.includes(SECRET));
    t.false(r.body.includes('<script'));
  });
}

test('the logical path itself is served (the refusals above are not of every file)', async (t) => {
  const r = await raw(served.url, `/file?id=${id}&v=v1&path=source.siard`);
  t.is(r.status, 200);
});

test('a loopback server answers only requests addressed to a loopback name; writing methods are refused', async (t) => {
  t.is((await raw(served.url, '/', { Host: 'evil.example' })).status, 403);
  t.is((await raw(served.url, '/', { Host: `localhost:${new URL(served.url).port}` })).status, 200);
  t.is((await raw(served.url, '/', {}, 'POST')).status, 405);
  t.is((await raw(served.url, `/file?id=${id}&v=v1&path=source.siard`, {}, 'DELETE')).status, 405);
});

test('a symbolic link planted in a copy of the root is not followed', async (t) => {
  const copy = path.join(work, 'root-with-link');
  execFileSync('cp', ['-a', fx.root, copy]);
  const listed = await runCli(['show', '--root', copy, '--id', ID, '--version', 'v1']);
  const line = listed.stdout.split('\n').find((l) => l.startsWith('source_lobseg_0/content/schema0/table1/lob3/record0.bin'))!;
  const objectDir = (await runCli(['ls', '--root', copy])).stdout.trim().split('\t')[2]!;
  const content = path.join(copy, objectDir, line.split('\t')[1]!);
  rmSync(content);
  symlinkSync(path.join(work, 'secret.txt'), content);
  const linked = await startServe(['--root', copy, '--port', '0']);
  const file = await raw(linked.url, `/file?id=${id}&v=v1&path=${encodeURIComponent(line.split('\t')[0]!)}`).catch(() => undefined);
  t.false(file?.body.includes(SECRET) ?? false);
  t.not(file?.status, 200);
  const lob = await raw(linked.url, `/lob?id=${id}&v=v1&s=main&t=docs&r=1&p=c3&download=1`).catch(() => undefined);
  t.false(lob?.body.includes(SECRET) ?? false);
  t.not(lob?.status, 200);
});

test('another host than loopback: a token is generated and printed once, and every request without it is refused', async (t) => {
  const open = await startServe(['--root', fx.root, '--host', '0.0.0.0', '--port', '0']);
  t.regex(open.lines[0]!, /^Serving .* at http:\/\/0\.0\.0\.0:\d+\/$/);
  for (let i = 0; i < 50 && open.lines.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
  const token = /^Access token \(shown once\): (\S+)$/.exec(open.lines[1] ?? '')?.[1];
  t.truthy(token, open.lines.join('\n'));
  const base = open.url.replace('0.0.0.0', '127.0.0.1');
  for (const target of ['/', `/object?id=${id}`, `/file?id=${id}&v=v1&path=source.siard`, `/csv?id=${id}&s=main&t=people`]) {
    t.is((await raw(base, target)).status, 401, target);
    t.is((await raw(base, target, { Authorization: 'Bearer wrong-token-of-some-length' })).status, 401, target);
    t.is((await raw(base, `${target}${target.includes('?') ? '&' : '?'}token=wrong`)).status, 401, target);
    t.is((await raw(base, target, { Authorization: `Bearer ${token}` })).status, 200, target);
  }
  const viaUrl = await raw(base, `/object?id=${id}&token=${token}`);
  t.is(viaUrl.status, 303);
  t.is(viaUrl.headers.location, `/object?id=${id}`);
  const cookie = String(viaUrl.headers['set-cookie']).split(';')[0]!;
  t.regex(String(viaUrl.headers['set-cookie']), /HttpOnly; SameSite=Strict/);
  t.is((await raw(base, `/object?id=${id}`, { Cookie: cookie })).status, 200);
});

test('a token given with --token is required and not printed', async (t) => {
  const given = await startServe(['--root', fx.root, '--host', '0.0.0.0', '--port', '0', '--token', 'given-token-123']);
  await new Promise((r) => setTimeout(r, 100));
  t.false(given.lines.join('\n').includes('given-token-123'));
  const base = given.url.replace('0.0.0.0', '127.0.0.1');
  t.is((await raw(base, '/')).status, 401);
  t.is((await raw(base, '/', { Authorization: 'Bearer given-token-123' })).status, 200);
});

test('nothing is written to the root while it is served', async (t) => {
  for (const target of ['/', `/object?id=${id}`, `/archive?id=${id}`, `/table?id=${id}&s=main&t=docs`, `/csv?id=${id}&s=main&t=many`])
    t.is((await raw(served.url, target)).status, 200, target);
  t.is(snapshot(fx.root), before);
});

test('a version written while serving shows after the recheck (10 s): listing and object read again by their sidecars', async (t) => {
  const copy = path.join(work, 'root-growing');
  execFileSync('cp', ['-a', fx.root, copy]);
  const growing = await startServe(['--root', copy, '--port', '0']);
  const object = `/object?id=${id}`;
  t.regex((await raw(growing.url, '/')).body, /<td>v2<\/td>/);
  t.false((await raw(growing.url, object)).body.includes('>v3<'));
  const env = { SIARD_OCFL_USER_NAME: 'Reading Room Test', SIARD_OCFL_USER_ADDRESS: 'mailto:room@example.org' };
  const moved = await runCli(['relocate', '--root', copy, '--id', ID, '--lob-folder', 'file:///Archives/Moved/'], { env });
  t.is(moved.code, 0, moved.stderr);
  await new Promise((r) => setTimeout(r, 10_500));
  t.regex((await raw(growing.url, '/')).body, /<td>v3<\/td>/);
  t.true((await raw(growing.url, object)).body.includes('>v3<'));
});
