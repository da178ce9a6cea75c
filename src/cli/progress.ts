/**
 * The one progress line of a long verb, on a terminal only: bytes done (of the total when known),
 * rate, elapsed time and ETA, and a count (rows, files, objects) as a second figure. Nothing when
 * stderr is not a terminal, with --json, or under CI.
 *
 * Verbs report into plain counters (one addition per row or LOB); cli-progress redraws the line
 * from them on its own timer, ten times a second at most, so a million small LOBs never cost a
 * redraw each.
 */
import { createRequire } from 'node:module';
import type cliProgressModule from 'cli-progress';
import { groupDigits } from './group-digits.js';

export interface ProgressTotals {
  bytes?: number;
  count?: number;
}

export interface Progress {
  /** Shows the line; `unit` names the count (rows, files, objects). Totals may come later. */
  start(label: string, unit: string, totals?: ProgressTotals): void;
  /** Totals learned after start (a plan); a field left out stays as it was. */
  total(totals: ProgressTotals): void;
  bytes(n: number): void;
  count(n?: number): void;
  stop(): void;
}

const silent: Progress = { start() {}, total() {}, bytes() {}, count() {}, stop() {} };

/** Redraws per second at most. */
const FPS = 10;
const BAR = 12;

/** Decimal units, as the SIZE options take them (k = 1000). */
function formatBytes(n: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB', 'PB'];
  let i = 0;
  let v = n;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return i === 0 ? `${n} B` : `${v.toFixed(v < 10 ? 2 : v < 100 ? 1 : 0)} ${units[i]}`;
}

function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

interface State {
  label: string;
  unit: string;
  bytes: number;
  count: number;
  totalBytes?: number;
  totalCount?: number;
  startedAt: number;
}

/**
 * The line for a state at `now` (ms), at most `width` columns: the figures always, the label
 * shortened if need be, and a bar only where there is room for it.
 */
function progressLine(s: State, now: number, width = 80, bar?: (fraction: number) => string): string {
  const elapsed = Math.max((now - s.startedAt) / 1000, 0.001);
  // ETA follows bytes when their total is known, else the count: whichever says how far along we are.
  const fraction = s.totalBytes ? s.bytes / s.totalBytes : s.totalCount ? s.count / s.totalCount : undefined;
  const f = fraction === undefined ? undefined : Math.min(Math.max(fraction, 0), 1);
  const figures = [
    ...(f !== undefined ? [`${Math.floor(f * 100)}%`] : []),
    // A verb that reports no bytes (restore) shows the count and its rate instead of "0 B".
    ...(s.bytes > 0 || s.totalBytes !== undefined
      ? [
          `${formatBytes(s.bytes)}${s.totalBytes !== undefined ? `/${formatBytes(s.totalBytes)}` : ''}`,
          `${formatBytes(Math.round(s.bytes / elapsed))}/s`,
        ]
      : []),
    `${groupDigits(s.count)}${s.totalCount !== undefined ? `/${groupDigits(s.totalCount)}` : ''} ${s.unit}`,
    ...(s.bytes > 0 || s.totalBytes !== undefined ? [] : [`${groupDigits(Math.round(s.count / elapsed))} ${s.unit}/s`]),
    `elapsed ${formatDuration(elapsed)}${f !== undefined && f > 0 && f < 1 ? ` ETA ${formatDuration((elapsed * (1 - f)) / f)}` : ''}`,
  ].join('  ');
  const room = width - 1 - figures.length - 2;
  let label = s.label;
  if (label.length > room) label = room > 1 ? `${label.slice(0, room - 1)}…` : '';
  // A bar of fixed size, or none: one that grew and shrank with the figures would flicker.
  const drawn = bar && f !== undefined && room - label.length >= BAR + 3 ? ` [${bar(f)}]` : '';
  return `${label}${drawn}  ${figures}`.slice(0, Math.max(width - 1, 0));
}

export function createProgress(options: { json?: boolean } = {}): Progress {
  if (options.json || !process.stderr.isTTY || process.env.CI) return silent;
  // Loaded only for a terminal: it costs ~10 ms of start-up that scripts and cron jobs need not pay.
  const cliProgress = createRequire(import.meta.url)('cli-progress') as typeof cliProgressModule;
  let state: State | undefined;
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      fps: FPS,
      barsize: BAR,
      // The counters are read at each redraw: update() is never called per row.
      format: (o, params) => {
        if (!state) return '';
        return progressLine(state, Date.now(), params.maxWidth, (f) => cliProgress.Format.BarFormat(f, o));
      },
      clearOnComplete: true,
      // The line fits the width by itself; the terminal's wrapping and cursor are left alone, so a
      // verb stopped by Ctrl-C does not leave the shell without them.
      hideCursor: false,
      linewrap: true,
    },
    cliProgress.Presets.shades_classic,
  );
  return {
    start(label, unit, totals = {}) {
      if (state) bar.stop();
      state = { label, unit, bytes: 0, count: 0, startedAt: Date.now() };
      this.total(totals);
      bar.start(0, 0);
    },
    total(totals) {
      if (!state) return;
      if (totals.bytes !== undefined) state.totalBytes = totals.bytes;
      if (totals.count !== undefined) state.totalCount = totals.count;
    },
    bytes(n) {
      if (state) state.bytes += n;
    },
    count(n = 1) {
      if (state) state.count += n;
    },
    stop() {
      bar.stop();
    },
  };
}
