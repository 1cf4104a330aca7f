/**
 * Several worker processes behind one port (node:cluster), for the HTTP services that are bound
 * by one core's CPU (the API, the issuer): `WEB_CONCURRENCY` workers share the listening socket,
 * the primary process only supervises them (README, "Running more than one worker per host").
 *
 * The primary loads no application code: it forks the workers, replaces one that dies, and on
 * SIGTERM/SIGINT passes the signal on so every worker drains as a lone process would
 * (`runHttpService`), then exits once they all did. A worker whose primary disappears exits too
 * (node:cluster ends a worker when its IPC channel closes).
 */
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from '@dms/logger';
import { HARD_EXIT_MARGIN_SECONDS } from './index.js';

/** What `runWorkers` needs. */
export interface WorkersOptions {
  /** Worker processes to run; 1 (or less) runs the service in this process, without a primary. */
  workers: number;
  log: Logger;
  /** Seconds each worker may take to drain after SIGTERM (the service's own grace period). */
  graceSeconds: number;
  /** Called once in the primary before forking (e.g. to aggregate the workers' metrics). */
  onPrimary?: () => void;
}

/** Deaths tolerated within `CRASH_WINDOW_MS` before the primary gives up and exits 1. */
const CRASH_LIMIT_PER_WORKER = 3;
const CRASH_WINDOW_MS = 60_000;

/**
 * Runs `start` (which starts the service and resolves once it listens) in this process when
 * `workers <= 1` or when this process is a cluster worker; otherwise becomes the primary of
 * `workers` workers and resolves once they all listen.
 * A worker that dies outside shutdown is replaced; more than 3 deaths per worker within 60 s make
 * the primary exit 1 (a crash loop is for the orchestrator to see, not to hide).
 * @throws what `start` throws (in a single process or a worker)
 */
export async function runWorkers(opts: WorkersOptions, start: () => Promise<unknown>): Promise<void> {
  if (opts.workers <= 1 || cluster.isWorker) {
    await start();
    return;
  }
  const { log } = opts;
  opts.onPrimary?.();
  let stopping = false;
  const deaths: number[] = [];
  /** Workers that listened: only those have their own SIGTERM handler (runHttpService) to drain. */
  const listening = new WeakSet<Worker>();

  const fork = (): Promise<Worker> =>
    new Promise((resolve, reject) => {
      const worker = cluster.fork();
      const failed = (code: number | null) => reject(new Error(`worker ${worker.process.pid} exited with ${code} before listening`));
      worker.once('exit', failed);
      worker.once('listening', () => {
        listening.add(worker);
        worker.off('exit', failed);
        resolve(worker);
      });
    });

  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    const now = Date.now();
    deaths.push(now);
    while (deaths.length && deaths[0]! < now - CRASH_WINDOW_MS) deaths.shift();
    log.error({ pid: worker.process.pid, code, signal }, 'worker died');
    if (deaths.length > CRASH_LIMIT_PER_WORKER * opts.workers) {
      log.fatal({ deaths: deaths.length, window_seconds: CRASH_WINDOW_MS / 1000 }, 'workers keep dying, exiting');
      process.exit(1);
    }
    fork().then(
      (w) => log.info({ pid: w.process.pid }, 'replacement worker listening'),
      (err: Error) => log.error({ err }, 'replacement worker failed to start'),
    );
  });

  // Signals are handled from the start: a SIGTERM while workers still boot stops them too.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      stopping = true;
      log.info({ signal }, 'stopping workers');
      // Past the workers' own hard limit nothing will exit on its own any more.
      setTimeout(
        () => {
          log.error('workers did not stop in time, exiting');
          process.exit(1);
        },
        (opts.graceSeconds + HARD_EXIT_MARGIN_SECONDS + 1) * 1000,
      ).unref();
      const alive = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w && !w.isDead());
      let failures = 0;
      let left = alive.length;
      if (!left) process.exit(0);
      for (const w of alive) {
        w.once('exit', (code, exitSignal) => {
          // A worker still booting has no handler yet: the signal itself ends it, which is a clean stop.
          const clean = code === 0 || (exitSignal === signal && !listening.has(w));
          if (!clean) failures++;
          (clean ? log.info : log.error).call(log, { pid: w.process.pid, code, signal: exitSignal }, 'worker stopped');
          if (--left === 0) process.exit(failures ? 1 : 0);
        });
        w.process.kill(signal);
      }
    });
  }

  const workers = await Promise.all(Array.from({ length: opts.workers }, fork)).catch((err: Error) => {
    // A worker stopped by SIGTERM before it listened is no failure: the handler above exits.
    if (stopping) return new Promise<never>(() => {});
    throw err;
  });
  log.info({ workers: workers.length, pids: workers.map((w) => w.process.pid) }, 'workers listening');
}
