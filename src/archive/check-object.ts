/**
 * `check --root R --id I [--version vN]`: the SIARD 2.2 check of the archive in an object
 * version, read in place (the `.siard` and its LOB files at their content paths); files no cell
 * references are looked for among the version's logical paths.
 */
import { openObjectArchive } from './open-archive.js';
import { openRoot } from '../ocfl/root.js';
import { checkOpenedSiard, type CheckPackageOptions } from '../siard/check/check-package.js';
import { CheckReport, type CheckResult } from '../siard/check/report.js';
import { pathListLister } from '../siard/reader/unreferenced.js';

export async function checkObject(
  root: string,
  id: string,
  version?: string,
  options: Pick<CheckPackageOptions, 'onTable'> = {},
): Promise<CheckResult> {
  const object = await (await openRoot(root)).openObject(id);
  const v = version ?? object.head;
  const opened = await openObjectArchive(object, v, 'checked');
  const report = new CheckReport();
  try {
    await checkOpenedSiard(opened.reader, report, { ...options, access: opened.access, lister: pathListLister(object.state(v).keys()) });
  } finally {
    opened.reader.close();
  }
  return report.result();
}
