/**
 * How many times a repeating test repeats (random inventories, damaged bytes, kill series). `npm
 * test` runs the tier's count, chosen so that a broken property still fails (test/README.md says
 * how each was shown); `npm run bench` runs the full counts (bench/full-counts.bench.ts sets
 * SIARD_OCFL_FULL_COUNTS=1), which is what those tests ran before the tiers.
 */
const FULL_COUNTS = process.env.SIARD_OCFL_FULL_COUNTS === '1';

export function repetitions(tier: number, full: number): number {
  return FULL_COUNTS ? full : tier;
}
