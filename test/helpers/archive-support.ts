/**
 * Shared set-up for the archive tests (ingest, audit, relocate, demo): a Northwind database built by
 * the fixture, ingested into a fresh storage root, and independent readers of what was written
 * (the inventory as plain JSON, ZIP entries through python/unzip via export-support.ts).
 */
import Database from '../../src/sources/sqlite/driver.js';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
// @ts-expect-error plain JS fixture builder
import { buildNorthwind } from '../../fixtures/northwind.js';
import type { AuditFinding } from '../../src/archive/audit-findings.js';
import { ingest, type IngestResult } from '../../src/archive/ingest.js';
import { loadLayout0003 } from '../../src/ocfl/layout/extensions.js';
import { initRoot } from '../../src/ocfl/root.js';
import { runCli, type CliResult } from './cli.js';
import { tempDir } from './tmp.js';

export const NORTHWIND_LIMITS = { maxFiles: 4, maxBytes: 45_000 };

export interface Ingested {
  dir: string;
  root: string;
  id: string;
  db: string;
  objectDir: string;
  result: IngestResult;
}

/** Builds Northwind in a temp folder and ingests it (lobseg, 4 files / 45,000 bytes). */
export async function ingestNorthwind(id = 'urn:example:northwind'): Promise<Ingested> {
  const dir = tempDir('siard-ocfl-archive-');
  const db = path.join(dir, 'Northwind.db');
  buildNorthwind(db);
  const root = path.join(dir, 'root');
  const r = await initRoot(root, await loadLayout0003());
  const result = await ingest(`sqlite:${db}`, r, id, {
    name: 'Northwind',
    ...NORTHWIND_LIMITS,
    user: { name: 'test', address: 'mailto:test@example.org' },
  });
  return { dir, root, id, db, objectDir: path.join(root, result.objectPath), result };
}

export interface InventoryJson {
  id: string;
  head: string;
  digestAlgorithm: string;
  manifest: Record<string, string[]>;
  versions: Record<string, { state: Record<string, string[]> }>;
  fixity?: Record<string, Record<string, string[]>>;
}

export function readInventory(objectDir: string, version?: string): InventoryJson {
  return JSON.parse(readFileSync(path.join(objectDir, ...(version ? [version] : []), 'inventory.json'), 'utf8')) as InventoryJson;
}

/** logical path -> content path of a version, straight from the JSON. */
export function contentPaths(inv: InventoryJson, version = inv.head): Map<string, string> {
  const out = new Map<string, string>();
  for (const [digest, paths] of Object.entries(inv.versions[version]!.state)) for (const p of paths) out.set(p, inv.manifest[digest]![0]!);
  return out;
}

/** content path -> fixity value of `alg`. */
export function fixityOf(inv: InventoryJson, alg: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [digest, paths] of Object.entries(inv.fixity?.[alg] ?? {})) for (const p of paths) out.set(p, digest);
  return out;
}

export function sha256(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export interface AuditJson {
  ok: boolean;
  errors: number;
  warnings: number;
  objects: Array<{
    id: string;
    version: string;
    siards: Array<{ path: string; lobs: number; lobFiles: number; messageDigest: string; xsd: string }>;
  }>;
  /** As the CLI prints them: the library's findings, one JSON object each. */
  findings: AuditFinding[];
}

export async function auditCli(root: string, ...args: string[]): Promise<{ cli: CliResult; report: AuditJson }> {
  const cli = await runCli(['audit', '--root', root, '--json', ...args]);
  let report: AuditJson;
  try {
    report = JSON.parse(cli.stdout) as AuditJson;
  } catch {
    throw new Error(`audit printed no JSON (exit ${cli.code}): ${cli.stderr}`);
  }
  return { cli, report };
}

/** `cp -a`, so a corruption in one test does not touch another's copy. */
export function copyTree(from: string, to: string): void {
  execFileSync('cp', ['-a', from, to]);
}

/** Every table's rows as JSON text (values with their SQLite storage class), by table name. */
export function sqliteContents(file: string): Record<string, string> {
  const conn = new Database(file, { readonly: true });
  try {
    const out: Record<string, string> = {};
    const tables = conn
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name`)
      .all() as Array<{ name: string }>;
    for (const { name } of tables) {
      const rows = conn.prepare(`SELECT * FROM "${name}" ORDER BY rowid`).raw(true).safeIntegers(true).all() as unknown[][];
      out[name] = JSON.stringify(rows, (_k, v: unknown) =>
        typeof v === 'bigint'
          ? `int:${v}`
          : v instanceof Uint8Array || (v && (v as { type?: string }).type === 'Buffer')
            ? `hex:${Buffer.from(v as Uint8Array).toString('hex')}`
            : v,
      );
    }
    return out;
  } finally {
    conn.close();
  }
}
