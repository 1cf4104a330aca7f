/**
 * The delivery engine: claims due deliveries (several dispatcher processes may run at once) and
 * runs each through the steps of delivery/process.ts (target, render, send, decide, record) with
 * at most `DISPATCH_CONCURRENCY` sending at once. The next batch is claimed while the current one
 * sends, and results are written in batches behind the sends (delivery/recorder.ts), so neither
 * the claim's nor the recording's round trips hold a sending slot (docs/api.md section 7,
 * "Several dispatchers" and "Durability of results").
 *
 * It wakes on LISTEN/NOTIFY when an event commits, when an attempt finishes (a slot frees up) and
 * when the earliest scheduled retry comes due, with polling as a fallback.
 *
 * Shutdown (`stop`): no new claims; attempts in flight get the grace period to finish, then are
 * aborted and returned to the queue, due at once and not counted, for another dispatcher to send.
 */
import type { Knex } from '@dms/db';
import type { Logger } from '@dms/logger';
import type { SecretBox } from '@dms/secrets';
import { claimDue, secondsUntilNextDue, type ClaimedDelivery, type QueueOptions } from '@dms/webhook-delivery';
import type { DispatcherConfig } from './config.js';
import type { DispatcherMetrics } from './metrics.js';
import type { AttemptDeps } from './delivery/attempt.js';
import { processDelivery, type ProcessDeps, type SendSlot } from './delivery/process.js';
import { AttemptRecorder } from './delivery/recorder.js';
import { loadBatchTargets } from './delivery/targets.js';

/** Shortest wait between two queue checks, so rows held by another dispatcher do not cause a busy loop. */
const MIN_WAIT_MS = 25;
/** An attempt is aborted this long before its lease ends, so it never outlives its claim. */
const LEASE_SAFETY_MS = 2000;
/**
 * With fewer than half a batch of slots free, the loop waits this long for more attempts to finish
 * before claiming: under a backlog, one claim transaction per freed slot cost more than the sends.
 */
const CLAIM_DEBOUNCE_MS = 10;

/** What the engine is built from. */
export interface DispatcherDeps {
  db: Knex;
  cfg: DispatcherConfig;
  log: Logger;
  box: SecretBox;
  metrics: DispatcherMetrics;
  attempt: AttemptDeps;
}

interface InFlight {
  delivery: ClaimedDelivery;
  abort: AbortController;
  done: Promise<void>;
}

/** One process's delivery engine: `start`, `wake` on new work, `stop` to drain. */
export class Dispatcher {
  readonly #deps: DispatcherDeps;
  readonly #queue: QueueOptions;
  readonly #process: ProcessDeps;
  /** Claimed deliveries until their result is recorded (shutdown waits for these). */
  readonly #inFlight = new Map<string, InFlight>();
  /**
   * Of those, the ones sending: `DISPATCH_CONCURRENCY` bounds these. A finished attempt frees its
   * slot before its result is written, so claiming and sending go on while results are recorded
   * in batches (delivery/recorder.ts).
   */
  #sending = 0;
  /** Deliveries waiting for a sending slot, first claimed first. */
  readonly #slotQueue: Array<() => void> = [];
  /**
   * Claimed and not yet sent. Up to a batch more than there are slots: the next batch is claimed
   * while the current one sends, so slots never wait for a claim's round trip and WAL flush.
   */
  #unsent = 0;
  #stopping = false;
  #woken = false;
  #wake: (() => void) | undefined;
  #loop: Promise<void> | undefined;

  constructor(deps: DispatcherDeps) {
    this.#deps = deps;
    this.#queue = { leaseSeconds: deps.cfg.leaseSeconds, tenantIds: deps.cfg.tenantIds };
    this.#process = {
      db: deps.db,
      log: deps.log,
      metrics: deps.metrics,
      policy: { schedule: deps.cfg.schedule, jitter: deps.cfg.DISPATCH_JITTER },
      attempt: deps.attempt,
      recorder: new AttemptRecorder(deps.db, 2 * deps.cfg.DISPATCH_CONCURRENCY),
      isStopping: () => this.#stopping,
    };
  }

  /** Starts claiming and delivering. */
  start(): void {
    this.#loop ??= this.#run();
  }

  /** Asks the loop to check the queue now (an event committed, a slot freed). */
  wake(): void {
    this.#woken = true;
    this.#wake?.();
  }

  /**
   * Stops claiming, waits up to `graceMs` for attempts in flight, then aborts the rest and returns
   * them to the queue.
   */
  async stop(graceMs: number): Promise<void> {
    this.#stopping = true;
    this.wake();
    await this.#loop;
    const all = () => Promise.all([...this.#inFlight.values()].map((f) => f.done));
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), graceMs)));
    const outcome = await Promise.race([all().then(() => 'done' as const), graceOver]);
    clearTimeout(timer);
    if (outcome === 'timeout') {
      this.#deps.log.warn({ in_flight: this.#inFlight.size }, 'grace period over, returning in-flight deliveries to the queue');
      for (const f of this.#inFlight.values()) f.abort.abort(new Error('shutdown'));
      await all();
    }
  }

  async #run(): Promise<void> {
    const { cfg, log, db } = this.#deps;
    const pollMs = cfg.DISPATCH_POLL_SECONDS * 1000;
    const halfBatch = Math.ceil(Math.min(cfg.DISPATCH_CONCURRENCY, cfg.DISPATCH_BATCH_SIZE) / 2);
    // When slots first became free without reaching half a batch (undefined: not waiting).
    let partialSince: number | undefined;
    while (!this.#stopping) {
      this.#woken = false;
      // Results awaiting their write count too (up to DISPATCH_CONCURRENCY of them), so a slow
      // database slows claiming instead of piling up unrecorded attempts.
      const ahead = cfg.DISPATCH_CONCURRENCY + cfg.DISPATCH_BATCH_SIZE;
      const free = Math.min(ahead - this.#unsent, ahead + cfg.DISPATCH_CONCURRENCY - this.#inFlight.size);
      const want = Math.min(free, cfg.DISPATCH_BATCH_SIZE);
      if (want > 0 && want < halfBatch) {
        partialSince ??= Date.now();
        const left = CLAIM_DEBOUNCE_MS - (Date.now() - partialSince);
        if (left > 0) {
          await this.#sleep(left);
          continue;
        }
      }
      partialSince = undefined;
      let waitMs = pollMs;
      if (want > 0) {
        try {
          const claimed = await claimDue(db, this.#queue, want);
          if (claimed.length) this.#startBatch(claimed);
          if (claimed.length === want) continue;
          const next = await secondsUntilNextDue(db, this.#queue);
          if (next !== null) waitMs = Math.max(MIN_WAIT_MS, Math.min(pollMs, next * 1000));
        } catch (err) {
          log.error({ err }, 'queue check failed');
        }
      }
      if (this.#stopping) break;
      await this.#sleep(waitMs);
    }
  }

  #sleep(ms: number): Promise<void> {
    if (this.#woken) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wake = done;
    });
  }

  /** A sending slot for one claimed delivery (counted as unsent until freed). */
  #slot(): SendSlot {
    this.#unsent++;
    let taken = false;
    let freed = false;
    return {
      take: () => {
        taken = true;
        if (this.#sending < this.#deps.cfg.DISPATCH_CONCURRENCY) {
          this.#sending++;
          return Promise.resolve();
        }
        return new Promise((resolve) => this.#slotQueue.push(resolve));
      },
      free: () => {
        if (freed) return;
        freed = true;
        this.#unsent--;
        if (taken) {
          // The slot passes straight to the next waiting delivery, if any.
          const next = this.#slotQueue.shift();
          if (next) next();
          else this.#sending--;
        }
        this.wake();
      },
    };
  }

  #startBatch(claimed: ClaimedDelivery[]): void {
    const leaseEnds = Date.now() + this.#deps.cfg.leaseSeconds * 1000 - LEASE_SAFETY_MS;
    const targets = loadBatchTargets(this.#deps.db, this.#deps.box, claimed);
    // One lease, so one signal for the batch: shutdown aborts every attempt in flight anyway.
    const abort = new AbortController();
    const signal = AbortSignal.any([abort.signal, AbortSignal.timeout(Math.max(1000, leaseEnds - Date.now()))]);
    for (const delivery of claimed) {
      if (delivery.interrupted) this.#deps.metrics.attempts.inc({ outcome: 'interrupted' });
      const slot = this.#slot();
      const done = processDelivery(this.#process, delivery, targets, signal, slot)
        .catch((err) => this.#deps.log.error({ err, delivery_id: delivery.id }, 'delivery processing failed'))
        .finally(() => {
          slot.free();
          this.#inFlight.delete(delivery.id);
          this.wake();
        });
      this.#inFlight.set(delivery.id, { delivery, abort, done });
    }
  }
}
