import test from 'ava';
import { keyTexts, keyWords, RowKey } from '../../../src/sources/row-key.js';
import { UsageError } from '../../../src/errors.js';

// texts as the servers print them: bigint beyond 2^53, numeric, text with quotes, backslashes and
// non-ASCII, bytea's hex, a date, a timestamp with its zone, an empty string
const CELLS = [
  '9223372036854775807',
  '-12345678901234567.0123456789',
  'O\'Brien "the" \\ é\u0000\n',
  '\\x00ff10',
  '1999-12-31',
  '2024-02-29 23:59:59.123456+00',
  '',
];

test('a row key made at a cut goes through a journal line and back to the same texts', (t) => {
  const row = ['other', ...CELLS];
  const key = new RowKey(row, (r) => r.slice(1) as string[]);
  const line = JSON.parse(JSON.stringify({ batch: { key: String(key) } })) as { batch: { key: string } };
  t.deepEqual(
    keyTexts(
      line.batch.key,
      CELLS.map((_, i) => `k${i}`),
      's.t',
    ),
    CELLS,
  );
});

test('a row key is turned into text only when asked', (t) => {
  let calls = 0;
  const key = new RowKey(['1'], (r) => {
    calls++;
    return r as string[];
  });
  t.is(calls, 0);
  t.is(`${key}`, '["1"]');
  t.is(calls, 1);
});

test('a journaled key that does not fit the table key now is refused in one sentence', (t) => {
  for (const key of ['["1","2"]', '[1]', '{"a":"1"}', 'not json', '486801']) {
    const err = t.throws(() => keyTexts(key, ['id'], 'public.doc'), { instanceOf: UsageError });
    t.is(
      err?.message,
      `The interrupted export stopped in table public.doc after the key ${key}, which does not fit the table's key (id) now: ` +
        'the table changed; run it again with --restart to start over.',
    );
    t.is((err as UsageError).exitCode, 2);
  }
});

test('a key for people: one column as its text, several in parentheses, a rowid as it is', (t) => {
  t.is(keyWords('["7"]'), '7');
  t.is(keyWords('["7","2024-01-31"]'), '(7, 2024-01-31)');
  t.is(keyWords('486801'), '486801');
  t.is(keyWords('[not json'), '[not json');
});
