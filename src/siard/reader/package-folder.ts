/**
 * The files of a package folder on disk (the folder holding a .siard and its LOB folders), as the
 * LOB readers may reach them: only plain relative paths, and nothing a symbolic link leads out of
 * the folder to. Checks are synchronous system calls, one LOB file after another: each a few calls
 * on this thread instead of round trips through the thread pool (src/read-small-file.ts).
 */
import { lstatSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { SiardOcflError } from '../../errors.js';

/** Folders remembered as leading nowhere out of the package (a million LOB files sit in a few thousand). */
const FOLDERS_KEPT = 4096;

function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

export class PackageFolder {
  private real: string | undefined;
  private readonly foldersInside = new Set<string>();

  constructor(readonly dir: string) {}

  /** The on-disk path of a package-relative path; refuses any path that is not plain or leaves the folder. */
  diskPath(relative: string): string {
    const segments = relative.split('/');
    if (segments.some((s) => s === '..' || s === '' || s === '.')) {
      throw new SiardOcflError(`Refusing LOB path "${relative}": it is not a plain path inside the package folder ${this.dir}.`, {
        code: 'LOB_OUTSIDE',
        exitCode: 1,
      });
    }
    const full = path.join(this.dir, ...segments);
    if (!isInside(this.dir, full)) {
      throw new SiardOcflError(`Refusing LOB path "${relative}": it leads out of the package folder ${this.dir}.`, {
        code: 'LOB_OUTSIDE',
        exitCode: 1,
      });
    }
    return full;
  }

  /** Whether `relative` is a file (a link only when it leads to a file inside); throws when a link leads out. */
  isFile(relative: string): boolean {
    const full = this.diskPath(relative);
    const st = lstatSync(full, { throwIfNoEntry: false });
    if (!st) return false;
    this.checkFolder(full, relative);
    if (!st.isSymbolicLink()) return st.isFile();
    if (!statSync(full, { throwIfNoEntry: false })?.isFile()) return false;
    this.checkTarget(full, relative);
    return true;
  }

  /**
   * The folder of `full` leads nowhere out of the package: one realpath(3), remembered. The last
   * component is the caller's to check (lstat, or an open with O_NOFOLLOW, then checkTarget).
   */
  checkFolder(full: string, relative: string): void {
    const folder = path.dirname(full);
    if (this.foldersInside.has(folder)) return;
    if (!this.realInside(folder)) throw this.outside(relative);
    if (this.foldersInside.size >= FOLDERS_KEPT) this.foldersInside.clear();
    this.foldersInside.add(folder);
  }

  /** `full`, links followed, is inside the package. */
  checkTarget(full: string, relative: string): void {
    if (!this.realInside(full)) throw this.outside(relative);
  }

  private realInside(target: string): boolean {
    this.real ??= realpathSync.native(this.dir);
    return isInside(this.real, realpathSync.native(target));
  }

  private outside(relative: string): SiardOcflError {
    return new SiardOcflError(`Refusing LOB file "${relative}": a symbolic link leads out of the package folder ${this.dir}.`, {
      code: 'LOB_OUTSIDE',
      exitCode: 1,
    });
  }
}
