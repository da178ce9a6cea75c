/** What an audit is asked to check (audit.ts), and its progress hooks. */
export interface AuditOptions {
  /** objects to audit (default: every object of the root) */
  ids?: string[];
  /** version whose SIARD archives are checked (default head); OCFL validation covers all versions */
  version?: string;
  /** skip the XSD check of metadata.xml */
  noXsd?: boolean;
  /** audit only shard k of n (1-based): objects whose path digest falls in it, so n hosts split a root */
  shard?: { k: number; n: number };
  /** progress: the objects to audit, once, before the first */
  onTargets?: (objects: number) => void;
  /** progress: an object's content bytes about to be read (once per object), then bytes read */
  onPlan?: (bytes: number) => void;
  onBytes?: (bytes: number) => void;
  /** progress: after each object */
  onObjectDone?: () => void;
}
