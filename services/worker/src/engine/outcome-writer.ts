/**
 * Writes the outcomes the engine's send lanes learn (docs/api.md section 13) as soon as each is
 * known, several lanes' at once in one transaction (a group commit: while one write runs, the
 * outcomes that arrive meanwhile wait for the next). A write that fails (the database is away) is
 * retried with backoff and jitter until it succeeds: the outcomes stay in memory meanwhile and a
 * known outcome is never dropped nor recorded as a failure. A lane waits for its outcome's commit
 * before it hands over its next message, so a worker killed at any instant leaves at most one
 * message per lane without its outcome.
 */
import type { Knex } from '@dms/db';
import { recordOutcomes, type CommunicationRow, type SendOutcome } from '@dms/domain/communications';
import type { Logger } from '@dms/logger';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** First and longest waits between attempts of a database write that failed, in milliseconds. */
const FIRST_WAIT_MS = 200;
const LONGEST_WAIT_MS = 5_000;

/**
 * Runs `write` until it succeeds, waiting between attempts from 0.2 s doubling to 5 s, each wait
 * scaled by a jitter in [0.5, 1.5); each failure is logged (at warn) as `what`.
 */
export async function untilWritten<T>(log: Logger, what: string, write: () => Promise<T>): Promise<T> {
  for (let wait = FIRST_WAIT_MS; ; wait = Math.min(wait * 2, LONGEST_WAIT_MS)) {
    try {
      return await write();
    } catch (err) {
      log.warn({ err: { message: (err as Error).message, code: (err as { code?: string }).code } }, `${what} failed; retrying`);
      await sleep(wait * (0.5 + Math.random()));
    }
  }
}

/** The group-commit writer of one worker's outcomes. */
export class OutcomeWriter {
  private pending: Array<{ sent: CommunicationRow; outcome: SendOutcome; done: () => void }> = [];
  private writing = false;

  constructor(
    private readonly db: Knex,
    private readonly log: Logger,
  ) {}

  /** Records `outcome` of `sent`; resolves once it is committed. */
  write(sent: CommunicationRow, outcome: SendOutcome): Promise<void> {
    return new Promise<void>((done) => {
      this.pending.push({ sent, outcome, done });
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    if (this.writing) return;
    this.writing = true;
    try {
      while (this.pending.length) {
        const group = this.pending.splice(0);
        await untilWritten(this.log, 'recording send outcomes', () => recordOutcomes(this.db, group));
        for (const g of group) g.done();
      }
    } finally {
      this.writing = false;
    }
  }
}
