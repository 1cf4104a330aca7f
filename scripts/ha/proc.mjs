/**
 * Processes for `npm run ha:verify`: commands run to completion, long-running daemons with their
 * output in a log file, and waiting for a condition. Every daemon started here is remembered, so
 * the run can stop exactly what it started (never anything found by name).
 */
import { execFile, spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Resolves after `ms` milliseconds. */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `cmd` with `args` to completion.
 * @returns its stdout
 * @throws Error with the command and its stderr when it exits non-zero
 */
export async function sh(cmd, args, opts = {}) {
  try {
    const { stdout } = await run(cmd, args, { maxBuffer: 16 * 1024 * 1024, ...opts });
    return stdout;
  } catch (err) {
    throw new Error(`${cmd} ${args.join(' ')}: ${(err.stderr || err.message).trim()}`);
  }
}

/** Every daemon started by `daemon`, so `stopAll` can end them. */
const daemons = new Set();

/**
 * Starts a long-running process whose stdout and stderr go to `logFile`.
 * @returns { child, pid, exited: Promise<number|string>, running(): boolean }
 */
export function daemon(cmd, args, { logFile, env = process.env } = {}) {
  const out = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  // Both streams into one file, ended once both are closed: a daemon SIGKILLed while processes it
  // started still write (PostgreSQL under a killed Patroni) closes them one after the other.
  child.stdout.pipe(out, { end: false });
  child.stderr.pipe(out, { end: false });
  child.once('close', () => out.end());
  out.on('error', () => {});
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

/** Stops every daemon still running (SIGTERM, then SIGKILL after `ms`). */
export async function stopAll(ms = 10_000) {
  await Promise.all([...daemons].map((d) => stop(d, 'SIGTERM', ms)));
}

/**
 * Process ids of the running processes whose command line contains `needle` (a path unique to
 * this run, such as a node's data directory): the PostgreSQL processes a node's Patroni started.
 */
export async function pidsWith(needle) {
  const out = await sh('ps', ['-eo', 'pid=,args=']);
  return out
    .split('\n')
    .filter((line) => line.includes(needle))
    .map((line) => Number(line.trim().split(/\s+/)[0]))
    .filter((pid) => Number.isInteger(pid) && pid !== process.pid);
}

/** Sends `signal` to each pid, ignoring those already gone. */
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
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** The last `lines` lines of a log file (for failure reports). */
export function tail(file, lines = 20) {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}
