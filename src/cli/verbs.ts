/**
 * Every verb of the command line, by name. Each module exports register(program). They are
 * loaded lazily: a command loads only its own verb's code (a cold start of every module costs
 * a third of a second, which a scheduled `validate` or `audit` of a small object should not pay);
 * the top-level --help loads them all.
 */
import type { Command } from 'commander';

export type RegisterVerb = (program: Command) => void;

export const VERBS: Record<string, () => Promise<{ register: RegisterVerb }>> = {
  init: () => import('./init.js'),
  path: () => import('./path.js'),
  put: () => import('./put.js'),
  export: () => import('./export.js'),
  ingest: () => import('./ingest.js'),
  validate: () => import('./validate.js'),
  audit: () => import('./audit.js'),
  relocate: () => import('./relocate.js'),
  describe: () => import('./describe.js'),
  checkout: () => import('./checkout.js'),
  restore: () => import('./restore.js'),
  verify: () => import('./verify.js'),
  diff: () => import('./diff.js'),
  ls: () => import('./ls.js'),
  log: () => import('./log.js'),
  show: () => import('./show.js'),
  tables: () => import('./tables.js'),
  rows: () => import('./rows.js'),
  repair: () => import('./repair.js'),
  mets: () => import('./mets.js'),
  serve: () => import('./serve.js'),
  check: () => import('./check.js'),
  cat: () => import('./cat.js'),
  info: () => import('./info.js'),
  purge: () => import('./purge.js'),
  upgrade: () => import('./upgrade.js'),
};

/** One example per verb, shown at the end of its --help (the README's verbs table gives the same). */
export const EXAMPLES: Record<string, string> = {
  init: 'siard-ocfl init --root /archive/root',
  path: "siard-ocfl path --root /archive/root 'ark:/12345/x1'",
  put: 'siard-ocfl put --root /archive/root --id urn:example:doc-1 ./folder --message "first"',
  export: 'siard-ocfl export sqlite:northwind.db ./out --max-files 4 --max-bytes 45k',
  ingest:
    'siard-ocfl ingest northwind.db --root /archive/root --id urn:example:northwind --user-name "A. Archivist" --user-address ' +
    'mailto:a@example.org',
  validate: 'siard-ocfl validate --root /archive/root --json',
  audit: 'siard-ocfl audit --root /archive/root --id urn:example:northwind',
  relocate: 'siard-ocfl relocate --root /archive/root --id urn:example:northwind --lob-folder file:///Archives/Northwind/',
  describe:
    'siard-ocfl describe --template --root /archive/root --id urn:example:northwind > d.json; ' +
    'siard-ocfl describe --apply d.json --root /archive/root --id urn:example:northwind',
  checkout: 'siard-ocfl checkout --root /archive/root --id urn:example:northwind --version v1 ./copy',
  restore: 'siard-ocfl restore --root /archive/root --id urn:example:northwind restored.db',
  verify: 'siard-ocfl verify --root /archive/root --id urn:example:northwind restored.db --json',
  diff: 'siard-ocfl diff --root /archive/root --id urn:example:northwind v1 v2 --json',
  ls: 'siard-ocfl ls --root /archive/root',
  log: 'siard-ocfl log --root /archive/root --id urn:example:northwind',
  show: 'siard-ocfl show --root /archive/root --id urn:example:northwind --version v2',
  tables: 'siard-ocfl tables --root /archive/root --id urn:example:northwind',
  rows: 'siard-ocfl rows --root /archive/root --id urn:example:northwind --table Orders --limit 10',
  repair: 'siard-ocfl repair --root /archive/root --json',
  mets: 'siard-ocfl mets --root /archive/root --id urn:example:northwind',
  serve: 'siard-ocfl serve --root /archive/root --port 8080',
  check: 'siard-ocfl check Northwind.siard --html report.html',
  cat: 'siard-ocfl cat --root /archive/root --id urn:example:northwind Northwind.siard > Northwind.siard',
  info: 'siard-ocfl info --root /archive/root --id urn:example:northwind',
  purge: 'siard-ocfl purge --root /archive/root --id urn:example:northwind --yes',
  upgrade: 'siard-ocfl upgrade --root /archive/root; siard-ocfl upgrade --root /archive/root --id urn:example:northwind',
};
