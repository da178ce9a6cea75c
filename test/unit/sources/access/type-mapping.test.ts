/** Access types and values as SIARD's: sizes by Jet version, dates to the millisecond, extended dates to 100 ns. */
import test from 'ava';
import type { Column } from 'mdb-reader';
import {
  accessDate,
  extendedTimestampText,
  siardTypeOf,
  sourceValueOf,
  timestampText,
} from '../../../../src/sources/access/type-mapping.js';

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

test('a date before 1899-12-30 is the day toward zero and the time without its sign (Access -1.25 = 1899-12-29 06:00)', (t) => {
  const asMdbReaderReads = (days: number) => new Date(Math.round((days - 25569) * 86400 * 1000));
  t.is(timestampText(accessDate(asMdbReaderReads(-1.25))), '1899-12-29T06:00:00');
  t.is(timestampText(accessDate(asMdbReaderReads(-1))), '1899-12-29T00:00:00');
  t.is(timestampText(accessDate(asMdbReaderReads(-0.5))), '1899-12-30T12:00:00');
  t.is(timestampText(accessDate(asMdbReaderReads(-657434))), '0100-01-01T00:00:00');
  t.is(timestampText(accessDate(asMdbReaderReads(1.75))), '1899-12-31T18:00:00');
  t.is(
    sourceValueOf(asMdbReaderReads(-2.5), {
      name: 'd',
      type: 'datetime',
      size: 8,
      fixedLength: true,
      nullable: true,
      autoLong: false,
      autoUUID: false,
    }),
    '1899-12-28T12:00:00',
  );
});

test('a replication id as Access shows it: braces, upper case', (t) => {
  const repid = { name: 'g', type: 'repid', size: 16, fixedLength: true, nullable: true, autoLong: false, autoUUID: false } as const;
  t.is(siardTypeOf(repid, 2).type, 'CHAR(38)');
  t.is(sourceValueOf('0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9', repid), '{0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9}');
});
