/**
 * The retention job (docs/api.md section 11): keeps partitions of `events`, `webhook_deliveries`
 * and `webhook_delivery_attempts` created ahead of time and drops those older than
 * `EVENT_RETENTION_DAYS`, by whole partitions (@dms/db partitions). Runs at start and then
 * periodically, in the worker with the other time-driven jobs; any number of workers may run it
 * (an advisory lock lets one through at a time).
 */
import { maintainPartitions, type Knex, type RetentionPolicy } from '@dms/db';
import type { Logger } from '@dms/logger';

const DAY = 86_400;
/** Partitions kept ahead of now: a week at the default daily width. */
const AHEAD = 7;

/**
 * The partition policy for a retention window: one-day partitions, or a thirtieth of the window
 * when that is shorter (a compressed window in the bench still gets many partitions), at least one
 * second; checked every half partition width, at most hourly.
 * @param retentionDays the window, days (fractions allowed)
 */
export function retentionPolicy(retentionDays: number): RetentionPolicy & { checkSeconds: number } {
  const retentionSeconds = retentionDays * DAY;
  const partitionSeconds = Math.max(1, Math.min(DAY, Math.floor(retentionSeconds / 30)));
  return { retentionSeconds, partitionSeconds, ahead: AHEAD, checkSeconds: Math.min(3600, partitionSeconds / 2) };
}

/**
 * Starts the job.
 * @returns `stop()`, which waits for a run in progress to finish
 */
export function startRetention(db: Knex, log: Logger, retentionDays: number): { stop: () => Promise<void> } {
  const policy = retentionPolicy(retentionDays);
  let running: Promise<void> = Promise.resolve();
  const run = () => {
    running = maintainPartitions(db, policy)
      .then((result) => {
        if (result && (result.created.length || result.dropped.length)) log.info({ created: result.created, dropped: result.dropped }, 'retention.partitions');
      })
      .catch((err) => log.error({ err }, 'retention.failed'));
  };
  run();
  const timer = setInterval(run, policy.checkSeconds * 1000);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
