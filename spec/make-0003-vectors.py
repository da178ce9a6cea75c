#!/usr/bin/env python3
"""Writes spec/0003-vectors.json: the test vectors of OCFL storage layout extension 0003.

The expected paths are NOT produced by siard-ocfl. They come from the extension text itself
(../shared/seeds/001_41b28a7f90922e42.txt, or the file named as the first argument):

  * "seed-python-tests": the _check_path(...) calls of the extension's normative Python code,
    captured while its own run_tests() runs (so each one is also checked by that code);
  * "spec-examples": the mapping tables of the extension's Examples 1-3 and its
    "Encapsulation Directory" table, parsed from the text and checked against the Python code;
  * "python-seed-code": edge cases we chose, mapped by the extension's Python functions run by
    python3: ocfl_path() for md5/sha256/sha512, and for the other algorithms the tuples of a
    hashlib digest joined with the extension's own _get_encapsulation_directory().

Usage: python3 spec/make-0003-vectors.py [seed-file] > spec/0003-vectors.json
"""
import hashlib
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, '..', '..', 'shared', 'seeds', '001_41b28a7f90922e42.txt')
EXTENSION = '0003-hash-and-id-n-tuple-storage-layout'

text = open(SEED, encoding='utf-8').read()

# --- the extension's Python code, run as written -------------------------------------------
code = text[text.index('import codecs'):]
seed = {'__name__': 'seed_0003'}
exec(compile(code, 'seed-0003-python', 'exec'), seed)

captured = []
original_check = seed['_check_path']


def recording_check(object_id, correct_path, algorithm='sha256', tuple_size=3, number_of_tuples=3):
    original_check(object_id, correct_path, algorithm=algorithm, tuple_size=tuple_size, number_of_tuples=number_of_tuples)
    captured.append((object_id, algorithm, tuple_size, number_of_tuples, correct_path))


seed['_check_path'] = recording_check
_stdout = sys.stdout
sys.stdout = sys.stderr  # run_tests() prints its progress
seed['run_tests']()
sys.stdout = _stdout


def hashlib_digest(algorithm, data):
    if algorithm == 'blake2b-512':
        return hashlib.blake2b(data, digest_size=64).hexdigest()
    m = re.fullmatch(r'blake2b-(\d+)', algorithm)
    if m:
        return hashlib.blake2b(data, digest_size=int(m.group(1)) // 8).hexdigest()
    if algorithm == 'sha512/256':
        return hashlib.new('sha512_256', data).hexdigest()
    return hashlib.new(algorithm, data).hexdigest()


def seed_path(object_id, algorithm, tuple_size, number_of_tuples):
    """The seed's ocfl_path where it knows the algorithm; the same steps with its helper otherwise."""
    if algorithm in ('md5', 'sha256', 'sha512'):
        return seed['ocfl_path'](object_id, algorithm=algorithm, tuple_size=tuple_size, number_of_tuples=number_of_tuples)
    digest = hashlib_digest(algorithm, object_id.encode('utf8')).lower()
    parts = [digest[i * tuple_size:(i + 1) * tuple_size] for i in range(number_of_tuples)]
    parts.append(seed['_get_encapsulation_directory'](object_id, digest=digest))
    return '/'.join(parts)


vectors = []


def add(object_id, algorithm, tuple_size, number_of_tuples, path, source, note=None):
    computed = seed_path(object_id, algorithm, tuple_size, number_of_tuples)
    assert computed == path, f'{object_id!r}: {computed} != {path}'
    v = {
        'id': object_id,
        'digestAlgorithm': algorithm,
        'tupleSize': tuple_size,
        'numberOfTuples': number_of_tuples,
        'digest': hashlib_digest(algorithm, object_id.encode('utf8')),
        'path': path,
        'source': source,
    }
    if note:
        v['note'] = note
    vectors.append(v)


for object_id, algorithm, tuple_size, number_of_tuples, path in captured:
    add(object_id, algorithm, tuple_size, number_of_tuples, path, 'seed-python-tests')

# --- Examples 1-3 of the extension text --------------------------------------------------------
for m in re.finditer(r'\nExample (\d)\n(.*?)(?=\nExample \d\n|\nPython Code\n)', text, re.S):
    number, body = m.group(1), m.group(2)
    params = json.loads(re.search(r'\{.*?\}', body, re.S).group(0))
    assert params['extensionName'] == EXTENSION
    rows = body[body.index('Object ID Digest Object Root Path'):].split('\n')[1:]
    for row in rows:
        fields = row.split(' ')
        if len(fields) != 3:
            break
        object_id, digest, path = fields
        assert hashlib_digest(params['digestAlgorithm'], object_id.encode('utf8')) == digest, row
        note = None
        if number == '3' and path == 'object-id':
            # The table prints "object-id" for "object-01"; its Python code (and common sense) give object-01.
            path = seed_path(object_id, params['digestAlgorithm'], 0, 0)
            note = 'Example 3 of the extension text prints "object-id" here, a typo; its Python code gives this path.'
        add(object_id, params['digestAlgorithm'], params['tupleSize'], params['numberOfTuples'], path,
            f'spec-examples (Example {number})', note)

# The "Encapsulation Directory" table: id -> directory name, i.e. the path with no tuples.
table = text[text.index('Object ID Encapsulation Directory Name'):text.index('\nParameters\n')]
for row in table.strip().split('\n')[1:]:
    object_id, name = row.split(' ')
    add(object_id, 'sha256', 0, 0, name, 'spec-examples (Encapsulation Directory table)',
        'With no tuples the object root path is the encapsulation directory name; sha256 is the default digest.')

# --- edge cases we chose; values from the seed's Python code --------------------------------
EDGE = [
    ('tab\there', 'sha256', 3, 3, 'TAB is escaped as %09'),
    ('tilde~id', 'sha256', 3, 3, '"~" is escaped (%7e) although URI encoders leave it alone'),
    ("bang!star*quote'paren()", 'sha256', 3, 3, "!*'() are all escaped"),
    ('space and+plus%percent', 'sha256', 3, 3, 'space, "+" and "%" are escaped'),
    ('emoji-\U0001F600-id', 'sha256', 3, 3, 'a 4-byte UTF-8 character gives four escapes'),
    ('\u00e4' * 40, 'sha256', 3, 3, 'forty "ä" encode to 240 characters; the cut at 100 lands inside an escape'),
    ('MixedCASE-Id_09', 'sha256', 3, 3, 'letters keep their case'),
    ('caf\u00e9', 'sha256', 3, 3, 'NFC "é" (one code point)'),
    ('cafe\u0301', 'sha256', 3, 3, 'NFD "é" (e + combining accent) is another id and another path'),
    ('..', 'sha256', 3, 3, 'dots are escaped so no path segment is "." or ".."'),
    ('extensions', 'sha256', 0, 0, 'with no tuples an id may be named like a reserved folder; layout does not forbid it'),
    ('nul\u0000del\u007f', 'sha256', 3, 3, 'control characters NUL and DEL'),
    ('\uffff\U0010ffff', 'sha256', 3, 3, 'highest code points'),
    ('a' * 100, 'sha256', 3, 3, 'exactly 100 encoded characters: not cut'),
    ('a' * 99 + '.', 'sha256', 3, 3, '99 + 3 = 102 encoded characters: cut inside the escape of "."'),
    ('urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66', 'sha512', 3, 3, 'sha512'),
    ('object-01', 'sha512', 4, 32, 'sha512, tuples use all 128 digest characters'),
    ('\u00e4' * 40, 'sha512', 2, 2, 'sha512: the appended digest is the full 128-character one'),
    ('object-01', 'sha1', 3, 3, 'sha1'),
    ('..Hor/rib:l\u00e8-$id', 'sha1', 2, 20, 'sha1, tuples use all 40 digest characters'),
    ('object-01', 'blake2b-512', 3, 3, 'blake2b-512'),
    ('\u00e4' * 40, 'blake2b-512', 3, 3, 'blake2b-512 with the 100-character cut'),
    ('object-01', 'md5', 32, 1, 'one tuple holding the whole md5 digest'),
    ('object-01', 'sha512/256', 3, 3, 'sha512/256 (OCFL digest registry)'),
    ('object-01', 'blake2b-160', 3, 3, 'blake2b-160 (OCFL digest registry; a 20-byte BLAKE2b, not a truncated blake2b-512)'),
    ('object-01', 'blake2b-256', 3, 3, 'blake2b-256'),
    ('\u00e4' * 40, 'blake2b-384', 3, 3, 'blake2b-384 with the 100-character cut'),
]
for object_id, algorithm, tuple_size, number_of_tuples, note in EDGE:
    add(object_id, algorithm, tuple_size, number_of_tuples, seed_path(object_id, algorithm, tuple_size, number_of_tuples),
        'python-seed-code', note)

doc = {
    'extension': EXTENSION,
    'description': 'Object id -> object root path under extension 0003. Paths are "/"-separated and relative to the storage root.',
    'sources': {
        'seed-python-tests': 'The _check_path calls of the Python code in the extension text (seeds/001_41b28a7f90922e42.txt), captured while its run_tests() ran.',
        'spec-examples': 'The mapping tables of Examples 1-3 and the Encapsulation Directory table of the extension text, checked against its Python code.',
        'python-seed-code': 'Edge cases chosen by siard-ocfl; values computed by python3 running the extension\'s Python code (ocfl_path for md5/sha256/sha512; for other algorithms hashlib digests split into tuples plus the extension\'s _get_encapsulation_directory).',
    },
    'generator': 'spec/make-0003-vectors.py (python3 spec/make-0003-vectors.py > spec/0003-vectors.json)',
    'vectors': vectors,
}
json.dump(doc, sys.stdout, ensure_ascii=False, indent=2)
sys.stdout.write('\n')
