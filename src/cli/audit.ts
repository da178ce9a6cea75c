/** `siard-ocfl audit`: OCFL validation with fixity plus the SIARD checks of every archive in the objects. */
import v8 from 'node:v8';
import type { Command } from 'commander';
import { audit, type AuditFinding } from '../archive/audit.js';
import { UsageError } from '../errors.js';
import { printJson } from './common.js';
import { createProgress } from './progress.js';

function where(f: AuditFinding): string {
  const cell = [f.table && `table ${f.table}`, f.row !== undefined && `row ${f.row}`, f.column && `column ${f.column}`]
    .filter(Boolean)
    .join(', ');
  return `${f.object}${f.path ? ` ${f.path}` : ''}${cell ? ` (${cell})` : ''}`;
}

const JSON_HELP =
  'print {ok, errors, warnings, objects, findings} as JSON; each finding has code, severity, message, object, path, table, row, ' +
  "column, and requirement (the SIARD 2.2 id check reports it under, where check's code found it)";

/** The finding's code, and the SIARD 2.2 requirement id when check's code found it. */
function codeOf(f: AuditFinding): string {
  return f.requirement !== undefined ? `${f.code} (${f.requirement})` : f.code;
}

/**
 * V8 inlines less while this process audits (issue 39). The audit's main thread runs a long tail of
 * short per-file and per-cell steps, each hot enough for V8's optimizing compiler, and with the
 * default inlining budget compiling them took about 1.1 s of CPU on the compiler's threads for an
 * object of 10,000 LOBs (of 5.1 s, on two cores beside the hashing); with this budget about
 * 0.8 s, and the main thread ran no slower (the hashing is native code either way).
 */
const AUDIT_V8_FLAGS = '--max-inlined-bytecode-size-cumulative=120';

export function register(program: Command): void {
  program
    .command('audit')
    .description(
      'verify objects: OCFL validation with fixity, and for each SIARD archive its metadata, LOB files (present, length, ' +
        'digest), split parts, row counts and messageDigest (a segmented SIARD file x.siard.1 ... .z: every segment, its parts ' +
        'joined); exit 0 ok, 1 problems found, 2 could not run',
    )
    .requiredOption('--root <root>', 'OCFL storage root')
    .option('--id <object-id...>', 'objects to audit (default: all objects of the root)')
    .option('--version <vN>', 'version whose SIARD archives are checked (default: head; OCFL validation covers every version)')
    .option('--shard <k/n>', 'audit only shard k of n (objects split by a digest of their path), so n hosts can share a root')
    .option('--no-xsd', 'skip the XSD check of metadata.xml (and of split table files)')
    .option('--json', JSON_HELP)
    .action(async (options: { root: string; id?: string[]; version?: string; shard?: string; xsd: boolean; json?: boolean }) => {
      let shard: { k: number; n: number } | undefined;
      if (options.shard !== undefined) {
        const m = /^(\d+)\/(\d+)$/.exec(options.shard);
        if (!m) throw new UsageError(`--shard must look like k/n (e.g. 2/4), not "${options.shard}".`);
        shard = { k: Number(m[1]), n: Number(m[2]) };
      }
      v8.setFlagsFromString(AUDIT_V8_FLAGS);
      const progress = createProgress({ json: options.json });
      // One object: its bytes say how far along; many: the objects do, and bytes are counted.
      progress.start('audit', 'objects');
      let single = false;
      const result = await audit(options.root, {
        ...(options.id ? { ids: options.id } : {}),
        ...(options.version ? { version: options.version } : {}),
        ...(shard ? { shard } : {}),
        noXsd: !options.xsd,
        onTargets: (n) => {
          single = n === 1;
          progress.total({ count: n });
        },
        onPlan: (bytes) => {
          if (single) progress.total({ bytes });
        },
        onBytes: (bytes) => progress.bytes(bytes),
        onObjectDone: () => progress.count(),
      }).finally(() => progress.stop());
      if (options.json) {
        printJson(result);
      } else {
        for (const o of result.objects) {
          const siards = o.siards
            .map((s) => {
              const segments = s.segments
                ? ` (a segmented SIARD file of ${s.segments.length} ` +
                  `segments, ${s.segments.filter((x) => x.messageDigest === 'verified').length} messageDigests verified)`
                : '';
              return (
                `${s.path}${segments}: ${s.tables} tables, ${s.rows} rows, ${s.lobs} LOB cells, ${s.lobFiles} LOB files, ` +
                `metadata ${s.xsd}, messageDigest ${s.messageDigest}`
              );
            })
            .join('; ');
          process.stdout.write(
            `${o.errors === 0 ? 'OK' : 'FAILED'}: object "${o.id}" ${o.version} (${o.objectPath}): ${o.contentFiles} content ` +
              `files, ${o.contentBytes} bytes read once; ` +
              `${siards || 'no SIARD archive'}; ${o.errors} errors, ${o.warnings} warnings.\n`,
          );
        }
        for (const f of result.findings) {
          if (f.severity === 'info') continue;
          process.stdout.write(`${f.severity.toUpperCase()} ${codeOf(f)} ${where(f)}: ${f.message}\n`);
        }
        const infos = result.findings.filter((f) => f.severity === 'info');
        for (const f of infos) process.stdout.write(`NOTE ${f.code} ${where(f)}: ${f.message}\n`);
        process.stdout.write(
          `${result.ok ? 'AUDIT PASSED' : 'AUDIT FAILED'}: ${result.objects.length} ` +
            `object${result.objects.length === 1 ? '' : 's'}, ${result.errors} errors, ${result.warnings} warnings.\n`,
        );
      }
      process.exitCode = result.ok ? 0 : 1;
    });
}
