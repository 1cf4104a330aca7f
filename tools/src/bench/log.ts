/**
 * The benchmark's progress lines: on stderr, each with the seconds since the run started (stdout
 * carries the result table). Its own module so that every part of the bench (the context, the data
 * set loader, the scenarios) can log without importing one another.
 */

const T0 = Date.now();

/** Progress line on stderr with the seconds since start (stdout carries the result table). */
export function log(line: string): void {
  process.stderr.write(`[bench +${((Date.now() - T0) / 1000).toFixed(0)}s] ${line}\n`);
}
