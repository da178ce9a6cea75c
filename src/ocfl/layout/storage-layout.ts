/**
 * What the rest of the OCFL code needs from a storage layout extension: the object root of an id,
 * and the configuration to write into `extensions/<name>/config.json`.
 */
export interface StorageLayout {
  /** Registered extension name, as written to `ocfl_layout.json` ("extension" key). */
  readonly extensionName: string;
  /** Full configuration (every parameter, defaults included), as written to config.json. */
  readonly config: Readonly<Record<string, unknown>> & { readonly extensionName: string };
  /** Object root of `id`: a '/'-separated path relative to the storage root. */
  objectPath(id: string): string;
}
