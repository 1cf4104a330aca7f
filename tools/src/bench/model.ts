/**
 * What a benchmark run produces: measured load runs (a throughput and latency percentiles), the
 * checks that put a figure beside its ceiling against the target, and notes (query plans,
 * profiles, methods) that explain them.
 */

/** Role of a measured run in the report and the chart. */
export type RunKind = 'service' | 'ceiling' | 'contrast' | 'reference';

/** One fixed-duration load run. Latencies in milliseconds, throughput in operations per second. */
export interface LoadRun {
  /** Short stable key, e.g. `api.debts.first` (used by the chart). */
  key: string;
  label: string;
  kind: RunKind;
  /** Operations per second over the measured window (successful ones only). */
  rps: number;
  /** Latency percentiles, ms; NaN where the run has no per-operation latency (raw signing). */
  p50: number;
  p99: number;
  /** Successful operations counted. */
  count: number;
  durationSec: number;
  /** Concurrent connections, clients or workers. */
  concurrency: number;
  /** CPU time the measured service process spent per operation, ms (when measured). */
  cpuMsPerOp?: number;
}

/** A figure beside its ceiling, with the target for the ratio. */
export interface Check {
  what: string;
  value: string;
  reference: string;
  ratio: string;
  target: string;
  /** null when the check could not be measured in this run. */
  met: boolean | null;
}

/** One sample of a storage series: seconds since the load started, then the figures at that moment. */
export interface SizePoint {
  t: number;
  /** On-disk size of the measured tables (heap, TOAST and indexes of every partition), bytes. */
  bytes: number;
  /** Rows the measured tables hold now. */
  rows: number;
  /** Events written since the load started (cumulative). */
  written: number;
}

/** On-disk size sampled over a run, drawn as its own chart (`file`, relative to the repository root). */
export interface SizeSeries {
  file: string;
  title: string;
  /** Length of one window (e.g. the retention window), s: the chart marks its boundaries. */
  windowSec: number;
  points: SizePoint[];
}

/** What one scenario contributes to the report. */
export interface ScenarioResult {
  name: string;
  title: string;
  runs: LoadRun[];
  checks: Check[];
  /** Markdown paragraphs or fenced blocks: method, plans, profile findings. */
  notes: string[];
  /** A sampled size series with its own chart, when the scenario has one. */
  series?: SizeSeries;
}

/**
 * The `q`-quantile (0..1) of `values` by the nearest-rank method.
 * @returns NaN for an empty list
 */
export function quantile(values: Float64Array | number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1]!;
}

/** Formats a number for tables: thousands separators, `digits` decimals (default 0). */
export function fmt(value: number, digits = 0): string {
  if (!Number.isFinite(value)) return '–';
  return value.toLocaleString('en-GB', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Formats milliseconds with a precision that suits their size. */
export function fmtMs(value: number): string {
  if (!Number.isFinite(value)) return '–';
  return `${fmt(value, value < 10 ? 2 : value < 100 ? 1 : 0)} ms`;
}

/** A ratio as `0.296×` (three decimals below 1, so a figure just under a target does not print as it). */
export function fmtRatio(value: number): string {
  if (!Number.isFinite(value)) return '–';
  return `${value.toFixed(value < 1 ? 3 : 2)}×`;
}
