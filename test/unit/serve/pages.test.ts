/**
 * The database and table pages of the reading room (src/serve/pages.ts) over a real archive of
 * another producer: SIARD Suite's `sfdboe.siard` (Oracle OE: views, routines, users, primary and
 * foreign keys, descriptions), opened by our reader, against its metadata.xml read independently
 * (yauzl for the ZIP, libxml2's XPath for the XML). Every view with its query, routine, user,
 * table with its rows and description, and every key of a table shows in the page as text.
 */
import { XmlDocument, type XmlElement } from 'libxml2-wasm';
import yauzl from 'yauzl';
import { archivePage, tablePage } from '../../../src/serve/pages.js';
import { SiardReader } from '../../../src/siard/reader/siard-reader.js';
import { reference, sharedTest } from '../../helpers/shared.js';

const SAMPLE = reference('siard-samples', 'siardapi', 'sfdboe.siard');
const NS = { s: 'http://www.bar.admin.ch/xmlns/siard/2/metadata.xsd' };

/** header/metadata.xml of a .siard, read by yauzl. */
function metadataXml(file: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (err, zip) => {
      if (err) return reject(err);
      zip.on('entry', (e: yauzl.Entry) => {
        if (e.fileName !== 'header/metadata.xml') return zip.readEntry();
        zip.openReadStream(e, (err2, stream) => {
          if (err2) return reject(err2);
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c)).on('end', () => (zip.close(), resolve(Buffer.concat(chunks))));
        });
      });
      zip.on('end', () => reject(new Error('no header/metadata.xml')));
      zip.readEntry();
    });
  });
}

/** The page's text: tags removed, entities decoded, white space as in the source (for <pre>). */
const text = (page: string) =>
  page
    .replace(/<[^>]*>/g, '')
    .replace(/&(lt|gt|quot|#39|amp);/g, (_, e: string) => ({ lt: '<', gt: '>', quot: '"', '#39': "'", amp: '&' })[e]!);

const child = (e: XmlElement, name: string) => e.get(`s:${name}`, NS)?.content;

sharedTest('the database page: every view and its query, routine, user, table with rows and description', async (t) => {
  const doc = XmlDocument.fromBuffer(await metadataXml(SAMPLE));
  const reader = await SiardReader.open(SAMPLE);
  try {
    const tables = reader.tables();
    const html = archivePage(
      { id: 'urn:x', v: 'v1' },
      'sfdboe.siard',
      reader.archive,
      tables,
      tables.map(() => ({ by: 'metadata' as const })),
    );
    const page = text(html);
    const views = doc.find('//s:view', NS) as XmlElement[];
    const routines = doc.find('//s:routine', NS) as XmlElement[];
    const users = doc.find('//s:user', NS) as XmlElement[];
    const tableElements = doc.find('//s:table', NS) as XmlElement[];
    t.deepEqual([views.length, routines.length, users.length, tableElements.length], [13, 12, 2, 14]);
    for (const v of views) {
      t.true(page.includes(child(v, 'name')!), `view ${child(v, 'name')}`);
      const query = child(v, 'query') ?? child(v, 'queryOriginal');
      if (query) t.true(page.includes(query), `the query of view ${child(v, 'name')}`);
    }
    for (const r of routines) t.true(page.includes(child(r, 'name')!), `routine ${child(r, 'name')}`);
    for (const u of users) t.true(page.includes(child(u, 'name')!), `user ${child(u, 'name')}`);
    for (const e of tableElements) {
      const [name, rows, description] = [child(e, 'name')!, child(e, 'rows')!, child(e, 'description')];
      t.true(html.includes(`>${name}</a></td><td>${rows}</td>`), `table ${name} and its rows`);
      if (description) t.true(page.includes(description), `description of ${name}`);
    }
    for (const field of ['dbname', 'dataOwner', 'dataOriginTimespan', 'producerApplication'])
      t.true(page.includes(doc.get(`/s:siardArchive/s:${field}`, NS)!.content), field);
  } finally {
    reader.close();
    doc.dispose();
  }
});

sharedTest("a table page: every column's type, original type, nullable and description; every key", async (t) => {
  const doc = XmlDocument.fromBuffer(await metadataXml(SAMPLE));
  const reader = await SiardReader.open(SAMPLE);
  try {
    let foreignKeys = 0;
    for (const e of doc.find('//s:table', NS) as XmlElement[]) {
      const schema = (e.parent!.parent as XmlElement).get('s:name', NS)!.content;
      const ref = reader.tables().find((r) => r.schema.name === schema && r.table.name === child(e, 'name'))!;
      const page = text(tablePage({ id: 'urn:x', v: 'v1', s: schema, t: ref.table.name }, ref, [], 1, false, undefined, true));
      for (const c of e.find('s:columns/s:column', NS) as XmlElement[]) {
        const type = child(c, 'type') ?? `${child(c, 'typeSchema') ?? ''}.${child(c, 'typeName')}`;
        const nullable = child(c, 'nullable') === undefined ? '' : child(c, 'nullable') === 'true' ? 'yes' : 'no';
        const cells = [child(c, 'name'), type, child(c, 'typeOriginal') ?? '', nullable, child(c, 'description') ?? ''];
        t.true(page.includes(cells.join('\n')) || new RegExp(cells.map(escape).join('\\s*')).test(page), `${ref.table.name}.${cells[0]}`);
      }
      for (const k of e.find('s:primaryKey|s:candidateKeys/s:candidateKey|s:foreignKeys/s:foreignKey', NS) as XmlElement[]) {
        t.true(page.includes(child(k, 'name')!), `key ${child(k, 'name')} of ${ref.table.name}`);
        if (k.name === 'foreignKey') {
          foreignKeys++;
          t.true(page.includes(`references ${child(k, 'referencedSchema')}.${child(k, 'referencedTable')}`), child(k, 'name')!);
        }
      }
    }
    t.is(foreignKeys, 18);
  } finally {
    reader.close();
    doc.dispose();
  }
});

const escape = (s: string | undefined) => (s ?? '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
