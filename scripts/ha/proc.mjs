/**
 * Processes for `npm run ha:verify`: commands run to completion, long-running daemons with their
 * output in a log file, and waiting for a condition. Every daemon started here is remembered, so
 * the run can stop exactly what it started (never anything found by name).
 */
import { execFile, spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Resolves after `ms` milliseconds.
 * @type {(ms: number) => Promise<void>}
 */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `cmd` with `args` to completion.
 * @param {string} cmd
 * @param {string[]} args
 * @param {import('node:child_process').ExecFileOptions} [opts]
 * @returns {Promise<string>} its stdout
 * @throws Error with the command and its stderr when it exits non-zero
 */
export async function sh(cmd, args, opts = {}) {
  try {
    const { stdout } = await run(cmd, args, { maxBuffer: 16 * 1024 * 1024, ...opts, encoding: 'utf8' });
    return stdout;
  } catch (err) {
    const e = /** @type {Error & { stderr?: string }} */ (err);
    throw new Error(`${cmd} ${args.join(' ')}: ${(e.stderr || e.message).trim()}`);
  }
}

/**
 * @typedef {object} Daemon a long-running process started by `daemon`
 * @property {import('node:child_process').ChildProcess} child
 * @property {number | undefined} pid
 * @property {string} logFile
 * @property {Promise<number | string | null>} exited resolves with the exit code or the signal
 * @property {() => boolean} running
 */

/** Every daemon started by `daemon`, so `stopAll` can end them. @type {Set<Daemon>} */
const daemons = new Set();

/**
 * Starts a long-running process whose stdout and stderr go to `logFile`.
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ logFile: string, env?: NodeJS.ProcessEnv }} opts
 * @returns {Daemon}
 */
export function daemon(cmd, args, { logFile, env = process.env }) {
  const out = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  // Both streams into one file, ended once both are closed: a daemon SIGKILLed while processes it
  // started still write (PostgreSQL under a killed Patroni) closes them one after the other.
  child.stdout.pipe(out, { end: false });
  child.stderr.pipe(out, { end: false });
  child.once('close', () => out.end());
  out.on('error', () => {});
  /** @type {Daemon} */
  const handle = {
    child,
    pid: child.pid,
    logFile,
    exited: new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code))),
    running: () => child.exitCode === null && child.signalCode === null,
  };
  daemons.add(handle);
  handle.exited.then(() => daemons.delete(handle));
  return handle;
}

/**
 * Sends `signal` to a daemon and waits up to `ms` for it to exit, then SIGKILLs it.
 * @param {Daemon | undefined} handle
 * @param {NodeJS.Signals} [signal]
 * @param {number} [ms]
 */
export async function stop(handle, signal = 'SIGTERM', ms = 15_000) {
  if (!handle?.running()) return;
  handle.child.kill(signal);
  const timer = sleep(ms).then(() => 'timeout');
  if ((await Promise.race([handle.exited, timer])) === 'timeout') {
    handle.child.kill('SIGKILL');
    await handle.exited;
  }
}

/** Stops every daemon still running (SIGTERM, then SIGKILL after `ms`). @param {number} [ms] */
export async function stopAll(ms = 10_000) {
  await Promise.all([...daemons].map((d) => stop(d, 'SIGTERM', ms)));
}

/**
 * Process ids of the running processes whose command line contains `needle` (a path unique to
 * this run, such as a node's data directory): the PostgreSQL processes a node's Patroni started.
 * @param {string} needle
 * @returns {Promise<number[]>}
 */
export async function pidsWith(needle) {
  const out = await sh('ps', ['-eo', 'pid=,args=']);
  return out
    .split('\n')
    .filter((line) => line.includes(needle))
    .map((line) => Number(line.trim().split(/\s+/)[0]))
    .filter((pid) => Number.isInteger(pid) && pid !== process.pid);
}

/**
 * Sends `signal` to each pid, ignoring those already gone.
 * @param {number[]} pids
 * @param {NodeJS.Signals} signal
 */
export function signalPids(pids, signal) {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // already exited
    }
  }
}

/**
 * Polls `check` every `everyMs` until it returns a truthy value, which is returned.
 * @template T
 * @param {string} what
 * @param {() => T | Promise<T>} check
 * @param {number} [timeoutMs]
 * @param {number} [everyMs]
 * @returns {Promise<NonNullable<T>>}
 * @throws Error naming `what` after `timeoutMs`
 */
export async function waitFor(what, check, timeoutMs = 90_000, everyMs = 250) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let value;
    try {
      value = await check();
    } catch {
      value = undefined;
    }
    if (value) return /** @type {NonNullable<T>} */ (value);
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(everyMs);
  }
}

/**
 * The last `lines` lines of a log file (for failure reports).
 * @param {string} file
 * @param {number} [lines]
 */
export function tail(file, lines = 20) {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}
