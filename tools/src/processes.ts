/**
 * Starts the built services as child processes (tests, benchmarks, scale-out checks) on free
 * loopback ports, and stops them.
 * Each child's stdout/stderr goes to `<TEST_LOG_DIR>/<name>-<port>.log`, so tests can also assert
 * on what a service logged (e.g. that no secret ever appears).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root (tools/dist is two levels below). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export type ServiceName = 'auth' | 'api' | 'dispatcher' | 'worker' | 'portal';

/** A running child service. */
export interface RunningService {
  name: string;
  port: number;
  url: string;
  logFile: string;
  child: ChildProcess;
  /** Sends `signal` (default SIGTERM) and resolves when the process exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Ports `freePort` handed out in this process. */
const handedOut = new Set<number>();

/** A port the system gave for a trial listen on 127.0.0.1 (free a moment ago). */
function systemPort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => res(port));
    });
  });
}

/**
 * A port that was free a moment ago on 127.0.0.1, never one this process handed out before: the
 * system may give the same port to two trial listens in a row, and two services asked for in a
 * row (an issuer, then an API) would then share it, the second failing to listen while the first
 * answered its readiness check.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await systemPort();
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
}

/**
 * Resolves true when nothing listens on `port` (a trial listen on all interfaces, as the services
 * and, on 127.0.0.1, the embedded PostgreSQL bind), false on EADDRINUSE.
 * @throws other listen errors (e.g. EACCES on a privileged port)
 */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' ? res(false) : rej(err)));
    srv.listen(port, () => srv.close(() => res(true)));
  });
}

async function waitReady(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`service exited with code ${child.exitCode} before becoming ready`);
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`service at ${url} not ready after ${timeoutMs} ms`);
}

/**
 * Spawns `services/<name>/dist/server.js` with `env` (merged over the current environment) on
 * `port` (a free one by default) and waits for `/readyz`. `output` 'file' writes the child's logs
 * to `<TEST_LOG_DIR>/<name>-<port>.log`; 'inherit' shares this process's stdout and stderr.
 * @param options.processGroup runs the service in a process group of its own (its pid is the
 *   group's id), so that a test can signal the whole group as a terminal's Ctrl-C does
 * @throws when the service exits or is not ready within 60 s (the child is killed then)
 */
export async function startService(
  name: ServiceName,
  env: Record<string, string>,
  port?: number,
  output: 'file' | 'inherit' = 'file',
  options: { processGroup?: boolean } = {},
): Promise<RunningService> {
  const p = port ?? (await freePort());
  const logDir = process.env.TEST_LOG_DIR ?? join(REPO_ROOT, '.data', 'test-logs');
  const logFile = output === 'file' ? join(logDir, `${name}-${p}.log`) : '';
  const child = spawn(process.execPath, [join(REPO_ROOT, 'services', name, 'dist', 'server.js')], {
    env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'info', ...env, PORT: String(p) },
    stdio: ['ignore', output === 'file' ? 'pipe' : 'inherit', output === 'file' ? 'pipe' : 'inherit'],
    detached: options.processGroup ?? false,
  });
  if (output === 'file') {
    mkdirSync(logDir, { recursive: true });
    const out = createWriteStream(logFile, { flags: 'a' });
    child.stdout!.pipe(out);
    child.stderr!.pipe(out);
  }
  const url = `http://127.0.0.1:${p}`;
  try {
    // Generous: on a loaded 2-core machine a cold start can take several seconds.
    await waitReady(url, child, 60_000);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return {
    name,
    port: p,
    url,
    logFile,
    child,
    stop: (signal = 'SIGTERM') =>
      new Promise<void>((res) => {
        if (child.exitCode !== null || child.signalCode !== null) return res();
        child.once('exit', () => res());
        child.kill(signal);
      }),
  };
}
