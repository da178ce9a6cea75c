#!/usr/bin/env node
/**
 * The floor of a MariaDB export in Node (issue 39): a table's rows read through the mariadb
 * connector and nothing else, a page of 1,000 rows at a time in key order as the export reads
 * them, without a typeCast. bench/mariadb.bench.ts times it beside the export and the peer.
 *
 *   node bench/mariadb-read-floor.js <mysql://user:password@host:port/database> <table> <key column>
 */
import * as mariadb from 'mariadb';

const [url, table, key] = process.argv.slice(2);
const u = new URL(url);
const conn = await mariadb.createConnection({
  host: u.hostname,
  port: Number(u.port),
  user: decodeURIComponent(u.username),
  password: decodeURIComponent(u.password),
  database: u.pathname.slice(1),
  bigIntAsNumber: false,
  dateStrings: true,
});
await conn.query('START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY');
let after;
let rows = 0;
for (;;) {
  const where = after === undefined ? '' : ` WHERE \`${key}\` > ?`;
  const sql = `SELECT * FROM \`${table}\`${where} ORDER BY \`${key}\` LIMIT 1000`;
  const page = await conn.query({ sql, rowsAsArray: true }, after === undefined ? [] : [after]);
  if (page.length === 0) break;
  rows += page.length;
  after = page[page.length - 1][0];
  if (page.length < 1000) break;
}
await conn.end();
process.stdout.write(`${rows}\n`);
