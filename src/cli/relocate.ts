/** `siard-ocfl relocate`: a new version whose .siard names another database-level lobFolder. */
import type { Command } from 'commander';
import { relocate } from '../archive/relocate.js';
import { openRoot } from '../ocfl/root.js';
import { createProgress } from './progress.js';
import {
  addVersionInfoOptions,
  addWorkspaceOption,
  printJson,
  rootOptions,
  versionInfo,
  type VersionInfoCliOptions,
  type WorkspaceCliOptions,
} from './common.js';

export function register(program: Command): void {
  addWorkspaceOption(
    addVersionInfoOptions(
      program
        .command('relocate')
        .description(
          'new version of an object in which each .siard differs only in header/metadata.xml (database-level lobFolder); ' +
            'content entries and LOB files are not stored again, the archive messageDigest stays valid',
        )
        .requiredOption('--root <root>', 'OCFL storage root')
        .requiredOption('--id <object-id>', 'object id')
        .requiredOption(
          '--lob-folder <uri>',
          "new database-level lobFolder, a URI ending in '/' (e.g. file:///Archives/Northwind/ or ../)",
        ),
    ),
  )
    .option('--json', 'print the result as JSON')
    .action(async (o: VersionInfoCliOptions & WorkspaceCliOptions & { root: string; id: string; lobFolder: string; json?: boolean }) => {
      const root = await openRoot(o.root, rootOptions(o));
      const progress = createProgress({ json: o.json });
      progress.start(`relocate ${o.id}`, 'archives');
      let written = 0;
      const result = await relocate(root, o.id, {
        lobFolder: o.lobFolder,
        ...versionInfo(o),
        onPlan: (p) => progress.total({ bytes: p.bytes, count: p.archives }),
        onBytes: (n) => {
          written += n;
          progress.bytes(n);
        },
        onArchiveDone: () => progress.count(),
      })
        // The plan's total is the archives' sizes before; rewritten (a new metadata.xml, deflated anew) they differ a little.
        .then((r) => (progress.total({ bytes: written }), r))
        .finally(() => progress.stop());
      if (o.json) {
        printJson(result);
        return;
      }
      for (const a of result.archives)
        process.stdout.write(
          `${a.path}: lobFolder ${a.from ?? '(none)'} -> ${a.to}; first ${a.messageDigestRangeBytes} bytes copied unchanged.\n`,
        );
      for (const m of result.mets) {
        process.stdout.write(
          `${m.path}: METS index updated for the new ${m.siard} (SIZE ${m.size}, ${m.checksumType} ${m.checksum});` +
            ` ${m.childrenUnchanged} child METS unchanged.\n`,
        );
      }
      for (const n of result.notes) process.stdout.write(`Note: ${n}\n`);
      process.stdout.write(
        `Committed ${result.version} of object "${result.id}": ${result.stored} file${result.stored === 1 ? '' : 's'} stored ` +
          `new, LOB files${result.mets.length > 0 ? ' and child METS' : ''} unchanged.\n`,
      );
    });
}
