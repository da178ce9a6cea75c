/**
 * What counts as a SIARD archive by its name: a path or file name ending in `.siard`, in any case
 * (archives arrive as `Northwind.SIARD` from Windows tools). One rule for every place that looks
 * for archives: a folder, an object's logical files, a source given on the command line.
 */
export function isSiardFileName(name: string): boolean {
  return /\.siard$/i.test(name);
}
