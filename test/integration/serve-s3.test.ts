/**
 * The reading room over a storage root on S3 (a real Ceph RADOS Gateway, shared by the run or
 * started here): the object listed, a table paged, a LOB split over segment folders downloaded
 * with its exact bytes, CSV value by value. Skipped with a message where no gateway can start,
 * failing under CI.
 */
import test from 'ava';
import { startRgw, type RgwServer } from '../helpers/s3.js';
import { startServe, type Served } from '../helpers/serve.js';
import { ID, makeServeFixture, type ServeFixture } from '../helpers/serve-fixture.js';
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
});
