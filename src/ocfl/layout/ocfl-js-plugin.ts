/**
 * `import 'siard-ocfl/ocfl-js-plugin'` makes `@ocfl/ocfl` (and so `@ocfl/ocfl-fs`) map ids with our
 * extension 0003 implementation instead of its own, which lower-cases the escapes of the whole id
 * (so "A" and "a" collide), never cuts long names and leaves !~*'() unescaped: its objects land
 * where other OCFL tools do not look.
 *
 * How @ocfl/ocfl finds layouts (lib/extension.js, lib/storage.js): `OcflStorageLayout.register(cls)`
 * files a class under its static NAME and its class name; a storage asks
 * `OcflStorageLayout.class(name).create(config)` (a subclass of OcflStorageLayout is required),
 * then calls `map(id)` for an object's root (path.sep-separated, joined to the root), and at
 * create() writes `{extension: name, description}` to ocfl_layout.json and `config` to
 * extensions/<name>/config.json. Registering under the same NAME and class name replaces theirs.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { UsageError } from '../../errors.js';
import { HashAndIdNTupleLayout, LAYOUT_0003_NAME, type Layout0003Config } from './hash-and-id-n-tuple-layout.js';
import { loadIdDigest } from './id-digest.js';

/** The part of @ocfl/ocfl's OcflStorageLayout instance that this adapter relies on. */
export interface OcflJsLayoutInstance {
  parameters: Record<string, unknown>;
}

/** The part of @ocfl/ocfl's OcflStorageLayout class that this adapter relies on. */
export interface OcflJsLayoutClass {
  new (config?: unknown, defaultConfig?: unknown): OcflJsLayoutInstance;
  register(extensionClass: unknown): void;
  class(name: string): unknown;
}

// The package has no type declarations; load it as the CommonJS module it is (the same instance
// @ocfl/ocfl-fs requires, when npm has installed one copy).
const require = createRequire(import.meta.url);
const { OcflStorageLayout } = require('@ocfl/ocfl') as { OcflStorageLayout: OcflJsLayoutClass };

// The short BLAKE2b digests need WebAssembly loaded once; do it now so that the synchronous
// constructor @ocfl/ocfl calls works for every algorithm of the OCFL registry.
await Promise.all(['blake2b-160', 'blake2b-256', 'blake2b-384'].map((name) => loadIdDigest(name)));

/** Extension 0003 for @ocfl/ocfl, mapping ids with siard-ocfl's HashAndIdNTupleLayout. */
export class HashAndIdNTupleStorageLayout extends OcflStorageLayout {
  static get NAME(): string {
    return LAYOUT_0003_NAME;
  }

  static get DESCRIPTION(): string {
    return (
      'OCFL object identifiers are hashed and encoded as lower-case hex strings, divided into N n-tuple' +
      ' segments that form nested directories under the storage root; the object root is the' +
      ' percent-encoded identifier (extension 0003, siard-ocfl implementation).'
    );
  }

  readonly layout: HashAndIdNTupleLayout;

  /** `config`: a parsed config.json, a partial one, or nothing (the defaults). */
  constructor(config?: Partial<Layout0003Config> | null) {
    super(undefined, undefined);
    this.layout = new HashAndIdNTupleLayout(config ?? undefined);
    // @ocfl/ocfl reads parameters through get()/p; keep them in step with the real configuration.
    this.parameters = { ...this.layout.config };
  }

  /** Every parameter, so @ocfl/ocfl writes a complete config.json. */
  get config(): Layout0003Config {
    return { ...this.layout.config };
  }

  /** Object root of an id, in @ocfl/ocfl's convention (platform separator). */
  map(id: string): string {
    return this.layout.objectPath(id).split('/').join(path.sep);
  }

  /** The layout is fixed when made: a changed parameter would move every object. */
  set(param: string): never {
    throw new UsageError(`Extension 0003 layout parameters are fixed when the layout is created (tried to set "${param}").`);
  }
}

OcflStorageLayout.register(HashAndIdNTupleStorageLayout);

/** True when @ocfl/ocfl resolves extension 0003 to this adapter. */
export function isPluginActive(): boolean {
  return OcflStorageLayout.class(LAYOUT_0003_NAME) === HashAndIdNTupleStorageLayout;
}
