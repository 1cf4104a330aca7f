/**
 * Starts and stops the bare ceiling server (bare-server.ts) as a child process of the benchmark,
 * with the stack's database, issuer and public URL, and the benchmark's worker count.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../processes.js';
import type { BenchSettings } from '../settings.js';
import { cpuProfileEnv, type Stack } from '../stack.js';

/** A running bare server. */
export interface BareServer {
  url: string;
  /** The process the benchmark measures (the cluster's primary when it runs several workers). */
  child: ChildProcess;
  stop(): Promise<void>;
}

const SCRIPT = fileURLToPath(new URL('./bare-server.js', import.meta.url));

/** A bare server script of this directory (compiled name), e.g. the portal page's ceiling. */
export const BARE_PORTAL = fileURLToPath(new URL('./bare-portal.js', import.meta.url));

/**
 * Forks the bare server (`script`, default the API's, with `extraEnv`) with `settings.webConcurrency` workers and waits until all listen.
 * @throws when it exits or does not become ready within 60 s
 */
export async function startBareServer(settings: BenchSettings, stack: Stack, script = SCRIPT, extraEnv: Record<string, string> = {}): Promise<BareServer> {
  const port = await freePort();
  const child = fork(script, [], {
    env: {
      ...process.env,
      DATABASE_URL: settings.databaseUrl,
      PORT: String(port),
      WEB_CONCURRENCY: String(settings.webConcurrency),
      AUTH_ISSUER: stack.env.AUTH_ISSUER!,
      API_AUDIENCE: stack.env.API_AUDIENCE!,
      JWKS_URI: new URL('/.well-known/jwks.json', stack.env.AUTH_ISSUER).href,
      PUBLIC_BASE_URL: stack.env.PUBLIC_BASE_URL!,
      ...(settings.cpuProfileDir ? cpuProfileEnv(settings.cpuProfileDir) : {}),
      ...extraEnv,
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('bare server not ready after 60 s')), 60_000);
    child.once('message', () => {
      clearTimeout(timer);
      resolve();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`bare server exited with code ${code} before it was ready`));
    });
  }).catch((err) => {
    child.kill('SIGKILL');
    throw err;
  });
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
