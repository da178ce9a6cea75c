/**
 * The reading room in a real browser: Debian's `chromium` driven by puppeteer-core opens `/`,
 * filters the objects by id, follows links to a table, pages, opens a row, searches, sorts,
 * downloads the table's CSV (compared with the source rows) and a LOB (bytes compared with the source)
 * and opens hostile cells and an SVG LOB with a script (no script runs: no dialog ever opens).
 * Skipped with a message where chromium is absent, failing under CI (which installs it).
 * SCREENSHOT=<file> saves the table page (the README's docs/reading-room.png is made so).
 */
import test from 'ava';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { testIf } from '../helpers/requires.js';
import { startServe, type Served } from '../helpers/serve.js';
import { ID, makeServeFixture, MANY_ROWS, type ServeFixture } from '../helpers/serve-fixture.js';
import { tempDir } from '../helpers/tmp.js';

const CHROMIUM = process.env.CHROMIUM ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
const browserTest = testIf(CHROMIUM !== undefined, 'chromium is not installed (apt-get install chromium)');

let work: string;
let fx: ServeFixture;
let served: Served;
let browser: Browser | undefined;
const dialogs: string[] = [];

if (CHROMIUM !== undefined) {
  test.before(async () => {
    work = tempDir('siard-ocfl-serve-browser-');
    fx = await makeServeFixture(work);
    served = await startServe(['--root', fx.root, '--port', '0']);
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
  });
  test.after.always(async () => {
    await browser?.close();
  });
}

async function newPage(): Promise<Page> {
  const page = await browser!.newPage();
  page.on('dialog', async (d) => {
    dialogs.push(d.message());
    await d.dismiss();
  });
  await page.setViewport({ width: 1280, height: 900 });
  return page;
}

/** Clicks the first link whose text is `text` (inside `scope`, a CSS selector) and waits for the page. */
async function follow(page: Page, text: string, scope = 'body'): Promise<void> {
  const handles = await page.$$(`${scope} a`);
  for (const h of handles) {
    if ((await h.evaluate((a) => a.textContent?.trim())) === text) {
      await Promise.all([page.waitForNavigation(), h.click()]);
      return;
    }
  }
  throw new Error(`no link "${text}" on ${page.url()}`);
}

const rowNumbers = (page: Page) => page.$$eval('#rows tbody tr td:first-child', (tds) => tds.map((td) => Number(td.textContent)));

browserTest(
  '/ filtered, to a table, paging, a row, a search and its CSV, sorting, the CSV, a LOB downloaded with its exact bytes',
  async (t) => {
    const page = await newPage();
    await page.goto(served.url);
    await page.type('form[action="/"] input[name=q]', 'no-such-id');
    await Promise.all([page.waitForNavigation(), page.click('form[action="/"] button')]);
    t.is(await page.$$eval('#objects a', (as) => as.length), 0, 'filtered out');
    await page.goto(served.url);
    await page.type('form[action="/"] input[name=q]', 'reading-room');
    await Promise.all([page.waitForNavigation(), page.click('form[action="/"] button')]);
    await follow(page, ID, '#objects');
    t.regex(await page.title(), /reading-room/);
    await follow(page, 'database', '#versions');
    await follow(page, 'many', '.tables');
    t.deepEqual(
      await rowNumbers(page),
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
    await follow(page, 'next page');
    t.deepEqual(
      await rowNumbers(page),
      Array.from({ length: 50 }, (_, i) => i + 51),
    );
    await follow(page, '57', '#rows');
    t.regex(await page.$eval('#row', (e) => e.textContent ?? ''), /row 57/);
    await follow(page, 'database', 'nav');
    await follow(page, 'many', '.tables');
    await page.type('#search input[name=q]', 'QUOTED');
    await page.select('#search select[name=col]', 't');
    await Promise.all([page.waitForNavigation(), page.click('#search button')]);
    const quoted = fx.many.filter(([, text]) => text.includes('quoted'));
    t.deepEqual(
      await rowNumbers(page),
      quoted.map(([id]) => id),
    );
    t.is((await downloaded(page, 'a[href^="/csv?"]')).toString('utf8'), csvOf(quoted));
    await follow(page, 'database', 'nav');
    await follow(page, 'many', '.tables');
    await follow(page, 'id', '#rows thead');
    await follow(page, 'id', '#rows thead');
    t.deepEqual(
      await rowNumbers(page),
      Array.from({ length: 50 }, (_, i) => MANY_ROWS - i),
    );
    t.is((await downloaded(page, 'a[href^="/csv?"]')).toString('utf8'), csvOf(fx.many));
    await follow(page, 'database', 'nav');
    await follow(page, 'docs', '.tables');
    if (process.env.SCREENSHOT) await page.screenshot({ path: process.env.SCREENSHOT });
    await follow(page, '6', '#rows');
    t.is(fx.sha256(await downloaded(page, '#row a.download')), fx.sha256(fx.docs.get(6)!));
    await page.close();
  },
);

/** RFC 4180 text of rows of the table `many` (id, t), with its header. */
const csvOf = (rows: Array<[number, string]>) =>
  'id,t\r\n' + rows.map(([n, text]) => `${n},${/[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text}\r\n`).join('');

/** The bytes of the file the browser saves when the link `selector` is clicked. */
async function downloaded(page: Page, selector: string): Promise<Buffer> {
  const downloads = tempDir('siard-ocfl-serve-downloads-');
  const cdp = await page.createCDPSession();
  await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads });
  await (await page.$(selector))!.click();
  let files: string[] = [];
  for (let i = 0; i < 200 && (files.length === 0 || files.some((f) => f.endsWith('.crdownload'))); i++) {
    await new Promise((r) => setTimeout(r, 50));
    files = readdirSync(downloads);
  }
  if (files.length !== 1) throw new Error(`${files.length} files downloaded from ${selector}`);
  return readFileSync(path.join(downloads, files[0]!));
}

browserTest('hostile cells and an SVG or HTML LOB with a script run no script; the tables diagram is drawn', async (t) => {
  const page = await newPage();
  const id = encodeURIComponent(ID);
  await page.goto(new URL(`/table?id=${id}&s=main&t=people`, served.url).href);
  t.regex(await page.$eval('#rows', (e) => e.textContent ?? ''), /<script>alert\("cell"\)<\/script>/);
  await page.goto(new URL(`/row?id=${id}&s=main&t=people&r=1`, served.url).href);
  for (const r of [2, 3]) {
    await page.goto(new URL(`/lob?id=${id}&s=main&t=docs&r=${r}&p=c3`, served.url).href);
    t.regex(await page.evaluate(() => document.body.innerText), /<script>alert/);
  }
  await page.goto(new URL(`/diagram?id=${id}&v=v2`, served.url).href);
  await page.waitForFunction(() => (document.getElementById('diagram') as HTMLImageElement | null)?.complete === true);
  t.true(await page.$eval('#diagram', (img) => (img as HTMLImageElement).naturalWidth > 0), 'the diagram is drawn');
  await new Promise((r) => setTimeout(r, 200));
  t.deepEqual(dialogs, []);
  await page.close();
});
