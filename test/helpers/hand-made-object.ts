/**
 * A valid OCFL 1.1 object written by hand, not by the code under test (sha512, one version, its
 * inventory in the object root and in v1): for tests of readers and validators that need objects
 * of known shape, on a folder or as the keys of an object store.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const sha512 = (data: string) => createHash('sha512').update(data).digest('hex');

/** The object's files as [path below the object root, body]: `files` content files (file0.txt, ...). */
export function handMadeObjectFiles(id: string, files = 1): Array<[string, string]> {
  const manifest: Record<string, string[]> = {};
  const state: Record<string, string[]> = {};
  const content: Array<[string, string]> = [];
  for (let i = 0; i < files; i++) {
    const body = `the file of ${id}, ${i}\n`;
    const digest = sha512(body);
    manifest[digest] = [`v1/content/file${i}.txt`];
    state[digest] = [`file${i}.txt`];
    content.push([`v1/content/file${i}.txt`, body]);
  }
  const inventory = JSON.stringify({
    id,
    type: 'https://ocfl.io/1.1/spec/#inventory',
    digestAlgorithm: 'sha512',
    head: 'v1',
    contentDirectory: 'content',
    manifest,
    versions: {
      v1: { created: '2026-11-29T09:00:00Z', message: 'test', user: { name: 'Test', address: 'mailto:test@example.org' }, state },
    },
  });
  const sidecar = `${sha512(inventory)}  inventory.json\n`;
  return [
    ['0=ocfl_object_1.1', 'ocfl_object_1.1\n'],
    ['inventory.json', inventory],
    ['inventory.json.sha512', sidecar],
    ['v1/inventory.json', inventory],
    ['v1/inventory.json.sha512', sidecar],
    ...content,
  ];
}

/** Writes the object of handMadeObjectFiles at `dir`. */
export function writeHandMadeObject(dir: string, id: string, files = 1): void {
  for (const [rel, body] of handMadeObjectFiles(id, files)) {
    const full = path.join(dir, ...rel.split('/'));
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, body);
  }
}
