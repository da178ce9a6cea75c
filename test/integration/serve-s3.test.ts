/**
 * The reading room over a storage root on S3 (a real Ceph RADOS Gateway, shared by the run or
 * started here): the object listed, a table paged, a LOB split over segment folders downloaded
 * with its exact bytes, CSV value by value, the bytes the list shows equal to the keys' sizes; the
 * root's first page from the objects of the first pages of keys while the later pages are held back,
 * each row's bytes those of the keys put, taken from the listing's pages (no request per object but
 * its inventory and sidecar). Skipped with a message where no gateway can start, failing under CI.
 */
import test from 'ava';
import path from 'node:path';
import { HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { forEachConcurrent } from '../../src/ocfl/concurrent.js';
import { loadLayout0003 } from '../../src/ocfl/layout/extensions.js';
import { OcflStorageRoot } from '../../src/ocfl/root.js';
import { clientFromEnvironment, S3Storage } from '../../src/ocfl/storage/s3.js';
import { Room } from '../../src/serve/room.js';
import { startRgw, type RgwServer } from '../helpers/s3.js';
import { startServe, type Served } from '../helpers/serve.js';
import { ID, makeServeFixture, type ServeFixture } from '../helpers/serve-fixture.js';
import { handMadeObjectFiles } from '../helpers/hand-made-object.js';
import { tempDir } from '../helpers/tmp.js';

const started = startRgw();
const server: RgwServer | undefined = 'skipped' in started ? undefined : started;
const s3Test = server
  ? test
  : (title: string) => test.skip(`${title} (no S3 server: ${(started as { skipped: string }).skipped})`, () => {});

let fx: ServeFixture;
let served: Served;
let root: string;

if (server) {
  test.before(async () => {
    root = await server.bucket('serve', 'root');
    fx = await makeServeFixture(tempDir('siard-ocfl-serve-s3-'), root);
    served = await startServe(['--root', root, '--port', '0']);
  });
  test.after.always(() => server.stop());
}

const id = encodeURIComponent(ID);

s3Test('an s3:// root: objects listed, rows paged, a split LOB and CSV with their exact bytes', async (t) => {
  t.is(served.lines[0], `Serving ${root} at ${served.url}`);
  const home = await (await fetch(served.url)).text();
  t.true(home.includes(ID));
  t.regex(home, /<td>v2<\/td>/);
  const page2 = await fetch(new URL(`/table?id=${id}&s=main&t=many&page=2`, served.url));
  t.is(page2.status, 200);
  t.regex(await page2.text(), /<a href="\/row\?[^"]*">51<\/a>/);
  const lob = await fetch(new URL(`/lob?id=${id}&s=main&t=docs&r=6&p=c3&download=1`, served.url));
  t.is(lob.status, 200);
  t.is(fx.sha256(Buffer.from(await lob.arrayBuffer())), fx.sha256(fx.docs.get(6)!));
  const csv = await (await fetch(new URL(`/csv?id=${id}&s=main&t=many`, served.url))).text();
  t.is(
    csv,
    'id,t\r\n' + fx.many.map(([n, text]) => `${n},${/[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text}\r\n`).join(''),
  );
  // The bytes the list shows: every key under the object, summed here from the gateway's own listing.
  const { host: bucket, pathname } = new URL(root);
  const objectPath = (await loadLayout0003()).objectPath(ID);
  t.regex(home, new RegExp(`<td class="num">${(await keyBytes(bucket, `${pathname.slice(1)}/${objectPath}/`)).toLocaleString('en')}</td>`));
});

/** The sizes of every key under `prefix`, page after page of the gateway's ListObjectsV2. */
async function keyBytes(bucket: string, prefix: string): Promise<number> {
  const client = clientFromEnvironment();
  let bytes = 0;
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    for (const c of page.Contents ?? []) bytes += c.Size!;
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  client.destroy();
  return bytes;
}

/** The keys and bodies of one object of one file, as OCFL 1.1 lays it out under `at`. */
function objectKeys(at: string, id: string): Array<[string, string]> {
  return handMadeObjectFiles(id).map(([rel, body]) => [`${at}/${rel}`, body]);
}

s3Test("a root whose later pages of keys are held back: the first page from the first pages' objects, then the whole", async (t) => {
  const layout = await loadLayout0003();
  const url = await server!.bucket('serve-held', 'root');
  const bucket = new URL(url).host;
  const ids = Array.from({ length: 40 }, (_, i) => `urn:test:held-${String(i).padStart(2, '0')}`);
  const keys: Array<[string, string]> = [
    ['root/0=ocfl_1.1', 'ocfl_1.1\n'],
    ...ids.flatMap((id) => objectKeys(`root/${layout.objectPath(id)}`, id)),
  ];
  const client = clientFromEnvironment();
  await forEachConcurrent(keys, 16, async ([Key, Body]) => {
    await client.send(new PutObjectCommand({ Bucket: bucket, Key, Body }));
  });
  // The gateway itself, but the outline's pages of keys (ListObjectsV2 after a StartAfter) past the first wait for release;
  // what else the page asks for is counted: a size (HEAD) or a listing of one object's keys.
  let pages = 0;
  let heads = 0;
  let objectListings = 0;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const held = {
    send: async (command: Parameters<S3Client['send']>[0]) => {
      if (command instanceof ListObjectsV2Command && command.input.StartAfter !== undefined && ++pages > 1) await gate;
      if (command instanceof HeadObjectCommand) heads++;
      if (command instanceof ListObjectsV2Command && command.input.StartAfter === undefined && command.input.Prefix !== 'root/')
        objectListings++;
      return client.send(command);
    },
  } as unknown as S3Client;
  const bytesOf = new Map(ids.map((id) => [id, objectKeys('', id).reduce((sum, [, body]) => sum + Buffer.byteLength(body), 0)]));
  const storage = new S3Storage(held, bucket, 'root');
  const room = new Room(new OcflStorageRoot(storage, '1.1', layout), path.join(tempDir(), 'room'), 60_000);
  const timeout = new Promise<'waited for the whole list'>((resolve) => setTimeout(() => resolve('waited for the whole list'), 10_000));
  const first = await Promise.race([room.listObjects('', 0, 10), timeout]);
  const heldThen = pages;
  const asked = { heads, objectListings };
  release();
  if (typeof first === 'string') return t.fail(first);
  t.true(first.partial);
  t.true(first.total >= 10 && first.total < ids.length, `${first.total} found`);
  t.true(heldThen > 1, `${heldThen} pages asked for, those past the first held`);
  const shown = first.rows.map((r) => r.id!);
  t.deepEqual(shown, [...shown].sort(), 'in id order');
  // Each row read from its inventory on the gateway, as in a whole list; its bytes those of the keys put.
  t.true(first.rows.every((r) => r.head === 'v1' && r.fileCount === 1));
  t.deepEqual(
    first.rows.map((r) => r.bytes),
    shown.map((i) => bytesOf.get(i)),
  );
  // The first page of keys held every key of these objects: their sizes came from it, nothing asked for object by object.
  t.deepEqual(asked, { heads: 0, objectListings: 0 });
  await room.startListing().index;
  const whole = await room.listObjects('', 0, 10);
  t.is(whole.partial, undefined);
  t.is(whole.total, ids.length);
  t.deepEqual(
    whole.rows.map((r) => r.id),
    [...ids].sort().slice(0, 10),
  );
  t.deepEqual(
    whole.rows.map((r) => r.bytes),
    [...ids]
      .sort()
      .slice(0, 10)
      .map((i) => bytesOf.get(i)),
  );
  client.destroy();
});
