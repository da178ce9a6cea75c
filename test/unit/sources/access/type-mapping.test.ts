/** Access types and values as SIARD's: sizes by Jet version, dates to the millisecond, extended dates to 100 ns. */
import test from 'ava';
import type { Column } from 'mdb-reader';
import { extendedTimestampText, siardTypeOf, sourceValueOf, timestampText } from '../../../../src/sources/access/type-mapping.js';

const column = (type: Column['type'], extra: Partial<Column> = {}): Column => ({
  name: 'c',
  type,
  size: 0,
  fixedLength: false,
  nullable: true,
  autoLong: false,
  autoUUID: false,
  ...extra,
});

test('text sizes: Jet 3 counts characters, Jet 4 and later bytes of UCS-2', (t) => {
  t.is(siardTypeOf(column('text', { size: 50 }), 1).type, 'VARCHAR(50)');
  t.is(siardTypeOf(column('text', { size: 100 }), 2).type, 'VARCHAR(50)');
});

test('exact numbers stay exact: currency DECIMAL(19, 4), decimal with its precision and scale, values as text', (t) => {
  t.is(siardTypeOf(column('currency'), 2).type, 'DECIMAL(19, 4)');
  t.is(siardTypeOf(column('numeric', { precision: 18, scale: 3 }), 2).type, 'DECIMAL(18, 3)');
  t.is(sourceValueOf('-922337203685477.5808', column('currency')), '-922337203685477.5808');
  t.is(sourceValueOf(12345678901234567890n, column('bigint')), 12345678901234567890n);
});

test('dates: milliseconds kept when there are any; extended dates keep 7 digits', (t) => {
  t.is(timestampText(new Date(Date.UTC(1899, 11, 30))), '1899-12-30T00:00:00');
  t.is(timestampText(new Date(Date.UTC(2024, 1, 29, 23, 59, 59, 7))), '2024-02-29T23:59:59.007');
  t.is(timestampText(new Date(Date.UTC(100, 0, 1))), '0100-01-01T00:00:00');
  t.is(extendedTimestampText('0001.01.01 00:00:00.000000000'), '0001-01-01T00:00:00.0000000');
  t.is(extendedTimestampText('9999.12.31 23:59:59.999999900'), '9999-12-31T23:59:59.9999999');
  t.is(sourceValueOf(null, column('datetime')), null);
});
