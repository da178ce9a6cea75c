/**
 * InnoDB's row size: what each MariaDB type keeps in the row (utf8mb4 characters four bytes, a
 * column over 255 bytes or a text a 20-byte pointer), and the fewest short character columns
 * turned into text, the longest first and never a key's, for a row to fit in 8,126 bytes. The
 * restore of an Access table of 255 Text (50) columns into a real MariaDB is in
 * test/integration/access-samples.test.ts.
 */
import test from 'ava';
import { fitRowSize, inRowBytes, INNODB_ROW_LIMIT } from '../../../../src/sources/mysql/row-size.js';

test('bytes in the row by type', (t) => {
  t.is(inRowBytes('varchar(50)'), 202);
  t.is(inRowBytes('char(63)'), 254);
  t.is(inRowBytes('varchar(64)'), 22, 'over 255 bytes: may leave the row');
  t.is(inRowBytes('varbinary(100)'), 102);
  t.is(inRowBytes('int'), 4);
  t.is(inRowBytes('bigint'), 8);
  t.is(inRowBytes('datetime(3)'), 8);
  t.is(inRowBytes('decimal(19,4)'), 12);
  t.is(inRowBytes('longtext'), 22);
});

test('255 varchar(50) columns and an int key: the fewest varchars become text, the row fits', (t) => {
  const types = ['int', ...Array.from({ length: 255 }, () => 'varchar(50)')];
  const fitted = fitRowSize(types, [true]);
  const total = 24 + 32 + fitted.types.reduce((n, type) => n + inRowBytes(type), 0);
  t.true(total <= INNODB_ROW_LIMIT * 0.9);
  t.true(total + 202 - 22 > INNODB_ROW_LIMIT * 0.9, 'one text fewer would not fit');
  t.is(fitted.types[0], 'int');
  t.deepEqual(
    fitted.changed.map((i) => types[i]),
    fitted.changed.map(() => 'varchar(50)'),
  );
});

test('the longest first; a key column never; a table that fits is left as it is', (t) => {
  const types = [...Array.from({ length: 40 }, () => 'varchar(60)'), 'varchar(10)'];
  const keep = types.map((_, i) => i === 0);
  const fitted = fitRowSize(types, keep);
  t.false(fitted.changed.includes(0));
  t.false(fitted.changed.includes(40), 'the short one stays');
  t.deepEqual(fitRowSize(['int', 'varchar(255)', 'varchar(20)']), { types: ['int', 'varchar(255)', 'varchar(20)'], changed: [] });
});
