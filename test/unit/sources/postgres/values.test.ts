/**
 * PostgreSQL text output -> SIARD lexical forms (src/sources/postgres/values.ts), and the type
 * mapping table, checked against the formats PostgreSQL documents (ISO 8601 intervals, array
 * literal quoting) and xs:duration / xs:dateTime rules. No server needed.
 */
import test from 'ava';
import { mapPgType, type PgTypeInfo } from '../../../../src/sources/postgres/type-mapping.js';
import { convertScalar, intervalToDuration, parseArrayLiteral, ValueConversionError } from '../../../../src/sources/postgres/values.js';
import { durationToPgInterval, pgTypeOfSiard } from '../../../../src/sources/postgres/loader.js';

test('intervals become xs:duration; mixed signs are refused', (t) => {
  t.is(intervalToDuration('P1Y2M3DT4H5M6.5S'), 'P1Y2M3DT4H5M6.5S');
  t.is(intervalToDuration('P-3DT-1S'), '-P3DT1S');
  t.is(intervalToDuration('PT0S'), 'PT0S');
  t.is(intervalToDuration('P0D'), 'PT0S');
  t.is(intervalToDuration('PT0.000001S'), 'PT0.000001S');
  t.throws(() => intervalToDuration('P1M-1D'), { instanceOf: ValueConversionError, message: /mixes positive and negative/ });
  // and back: PostgreSQL reads negative parts, not a leading minus
  t.is(durationToPgInterval('-P3DT1S'), 'P-3DT-1S');
  t.is(durationToPgInterval('-P1Y2M3DT4H5M6.5S'), 'P-1Y-2M-3DT-4H-5M-6.5S');
  t.is(durationToPgInterval('P1D'), 'P1D');
});

test('dates and times in UTC with Z; BC and infinite values refused', (t) => {
  t.is(convertScalar('timestamptz', '2024-06-01 10:34:56.789+00'), '2024-06-01T10:34:56.789Z');
  t.is(convertScalar('timestamptz', '2024-06-01 10:34:56+05:30'), '2024-06-01T10:34:56+05:30');
  t.is(convertScalar('timestamp', '1999-12-31 23:59:59.5'), '1999-12-31T23:59:59.5Z');
  t.is(convertScalar('date', '0001-01-01'), '0001-01-01Z');
  t.is(convertScalar('timetz', '12:00:00+00'), '12:00:00Z');
  t.throws(() => convertScalar('date', '0044-03-15 BC'), { instanceOf: ValueConversionError });
  t.throws(() => convertScalar('timestamptz', 'infinity'), { instanceOf: ValueConversionError });
  t.throws(() => convertScalar('decimal', 'NaN'), { instanceOf: ValueConversionError });
  t.is(convertScalar('float', '-Infinity'), '-INF');
  t.deepEqual(convertScalar('blob', '\\x00ff10'), Buffer.from([0, 255, 16]));
});

test('array literals: quoting, escapes, NULL; multi-dimensional and shifted arrays refused', (t) => {
  t.deepEqual(parseArrayLiteral('{}'), []);
  t.deepEqual(parseArrayLiteral('{1,2,3}'), ['1', '2', '3']);
  t.deepEqual(parseArrayLiteral('{plain,"with space","with,comma","quote\\"s",NULL,"NULL","back\\\\slash",""}'), [
    'plain',
    'with space',
    'with,comma',
    'quote"s',
    null,
    'NULL',
    'back\\slash',
    '',
  ]);
  t.throws(() => parseArrayLiteral('{{1,2},{3,4}}'), { message: /multi-dimensional/ });
  t.throws(() => parseArrayLiteral('[0:1]={1,2}'), { message: /does not start at index 1/ });
});

const info = (typname: string, typmod = -1, extra: Partial<PgTypeInfo> = {}): PgTypeInfo => ({
  typname,
  typtype: 'b',
  typcategory: 'X',
  typmod,
  formatted: typname,
  ...extra,
});

test('type mapping: SIARD types that metadata.xsd accepts, and back to PostgreSQL', (t) => {
  const cases: Array<[PgTypeInfo, string]> = [
    [info('int2'), 'SMALLINT'],
    [info('int8'), 'BIGINT'],
    [info('numeric', ((20 << 16) | 6) + 4), 'DECIMAL(20, 6)'],
    [info('numeric'), 'DECIMAL'],
    [info('float4'), 'REAL'],
    [info('bpchar', 3 + 4), 'CHAR(3)'],
    [info('varchar', 40 + 4), 'VARCHAR(40)'],
    [info('varchar'), 'CLOB'],
    [info('bytea'), 'BLOB'],
    [info('timestamptz'), 'TIMESTAMP WITH TIME ZONE'],
    [info('time', 3), 'TIME(3)'],
    [info('time'), 'TIME(6)'],
    [info('time', 0), 'TIME'],
    [info('timetz'), 'TIME WITH TIME ZONE(6)'],
    [info('timestamp', 0), 'TIMESTAMP(0)'],
    [info('timestamp'), 'TIMESTAMP'],
    [info('uuid'), 'CHAR(36)'],
    [info('jsonb'), 'CLOB'],
    [info('mood', -1, { typtype: 'e', enumMaxLength: 5 }), 'VARCHAR(5)'],
    [info('oid', -1, { largeObject: true }), 'BLOB'],
    [info('_int4', -1, { typcategory: 'A', element: info('int4') }), 'INTEGER'],
  ];
  // The predefinedTypeType patterns of the SIARD 2.2 metadata.xsd (reference/siard/metadata.xsd).
  const xsd = [
    /^(INTEGER|INT|SMALLINT|BIGINT)$/,
    /^(NUMERIC|DECIMAL|DEC)(\s*\(\s*[1-9]\d*\s*(,\s*\d+\s*)?\))?$/,
    /^(REAL|DOUBLE PRECISION)$/,
    /^(CHARACTER|CHAR)(\s*\(\s*[1-9]\d*\s*\))?$/,
    /^(CHARACTER\s+VARYING|CHAR\s+VARYING|VARCHAR)(\s*\(\s*[1-9]\d*\s*\))?$/,
    /^(CHARACTER\s+LARGE\s+OBJECT|CLOB)(\s*\(\s*[1-9]\d*(\s*(K|M|G))?\s*\))?$/,
    /^(BINARY\s+LARGE\s+OBJECT|BLOB)(\s*\(\s*[1-9]\d*(\s*(K|M|G))?\s*\))?$/,
    /^(TIME|TIME\s+WITH\s+TIME\s+ZONE)(\s*\(\s*[1-9]\d*\s*\))?$/,
    /^(TIMESTAMP|TIMESTAMP\s+WITH\s+TIME\s+ZONE)(\s*\(\s*(0|([1-9]\d*))\s*\))?$/,
    new RegExp(
      String.raw`^INTERVAL\s+(((YEAR|MONTH|DAY|HOUR|MINUTE)(\s*\(\s*[1-9]\d*\s*` +
        String.raw`\))?(\s+TO\s+(MONTH|DAY|HOUR|MINUTE|SECOND)(\s*\(\s*[1-9]\d*\s*\))?)?)|(SECOND(\s*\(\s*[1-9]\d*\s*` +
        String.raw`(,\s*\d+\s*)?\))?))$`,
    ),
    /^(XML|DATE|BOOLEAN)$/,
  ];
  for (const [pgType, siard] of [
    ...cases,
    [info('interval'), 'INTERVAL DAY(9) TO SECOND(6)'] as [PgTypeInfo, string],
    [info('xml'), 'XML'] as [PgTypeInfo, string],
  ]) {
    const mapped = mapPgType(pgType).type;
    t.is(mapped, siard, pgType.typname);
    t.true(
      xsd.some((p) => p.test(mapped)),
      `${mapped} is a predefinedTypeType`,
    );
  }
  t.is(pgTypeOfSiard('DECIMAL(20, 6)'), 'numeric(20,6)');
  t.is(pgTypeOfSiard('NATIONAL CHARACTER VARYING(15)'), 'character varying(15)');
  t.is(pgTypeOfSiard('BINARY LARGE OBJECT'), 'bytea');
  t.is(pgTypeOfSiard('TIMESTAMP WITH TIME ZONE'), 'timestamp with time zone');
  t.is(pgTypeOfSiard('FLOAT(53)'), 'double precision');
});
