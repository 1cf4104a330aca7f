/**
 * Group recording of finished attempts (docs/api.md section 7, "Several dispatchers"): attempts
 * that finish while a write is under way wait for the next one, so under a backlog one statement
 * records many attempts (`recordAttempts` of @dms/webhook-delivery) instead of one round trip and
 * one commit each, and when attempts are few each is written at once (no timer delays it).
 */
import type { Knex } from '@dms/db';
import { recordAttempts, type AttemptRecord, type ClaimedDelivery, type FinishedAttempt } from '@dms/webhook-delivery';

interface Waiting {
  entry: FinishedAttempt;
  resolve: (recorded: boolean) => void;
  reject: (err: unknown) => void;
}

/** Writes finished attempts in batches, at most `maxWrites` statements at a time. */
export class AttemptRecorder {
  readonly #db: Knex;
  readonly #maxBatch: number;
  readonly #maxWrites: number;
  #waiting: Waiting[] = [];
  #writes = 0;
  #scheduled = false;

  /**
   * @param maxBatch most attempts per statement
   * @param maxWrites statements in flight at once; with one, attempts finishing during a write
   *   form the next batch (group commit)
   */
  constructor(db: Knex, maxBatch: number, maxWrites = 1) {
    this.#db = db;
    this.#maxBatch = maxBatch;
    this.#maxWrites = maxWrites;
  }

  /**
   * Records attempt `d.attempt` with outcome `record` in the next batch.
   * @returns false when the lease was lost (nothing written)
   * @throws what the batch's statement throws; the delivery then stays leased and is claimed
   *   again when its lease runs out
   */
  record(d: ClaimedDelivery, record: AttemptRecord): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ entry: { delivery: d, record }, resolve, reject });
      this.#schedule();
    });
  }

  /** Starts a write after the current turn of the event loop, so attempts finishing together share it. */
  #schedule(): void {
    if (this.#scheduled || this.#writes >= this.#maxWrites || !this.#waiting.length) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      void this.#write();
    });
  }

  async #write(): Promise<void> {
    if (this.#writes >= this.#maxWrites || !this.#waiting.length) return;
    const batch = this.#waiting.splice(0, this.#maxBatch);
    this.#writes++;
    try {
      const recorded = await recordAttempts(
        this.#db,
        batch.map((w) => w.entry),
      );
      batch.forEach((w, i) => w.resolve(recorded[i]!));
    } catch (err) {
      for (const w of batch) w.reject(err);
    } finally {
      this.#writes--;
      this.#schedule();
    }
  }
}
