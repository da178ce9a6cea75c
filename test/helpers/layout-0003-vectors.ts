/** The extension 0003 test vectors (spec/0003-vectors.json, made by python3 from the extension's own code). */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from './shared.js';

export interface Layout0003Vector {
  id: string;
  digestAlgorithm: string;
  tupleSize: number;
  numberOfTuples: number;
  digest: string;
  path: string;
  source: string;
}

export const LAYOUT_0003_VECTORS_FILE = path.join(PROJECT_ROOT, 'spec', '0003-vectors.json');

export const LAYOUT_0003_VECTORS = (JSON.parse(readFileSync(LAYOUT_0003_VECTORS_FILE, 'utf8')) as { vectors: Layout0003Vector[] }).vectors;
