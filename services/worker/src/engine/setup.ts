/**
 * Builds the collection engine's dependencies from the worker's settings (docs/api.md section
 * 13): the channel providers (`createChannels`: SMTP, the Vonage SMS API, local print) and the
 * links put into communications (the per-debt reply address, each message's portal link), how temporary
 * refusals are retried, and the writer of the send outcomes.
 */
import { addressKey, createChannels, replyAddress } from '@dms/channels';
import { resolveSecretsKey } from '@dms/config';
import type { Knex } from '@dms/db';
import { linkTokenKeys } from '@dms/domain/portal';
import type { Logger } from '@dms/logger';
import type { WorkerConfig } from '../config.js';
import type { EngineDeps } from './send.js';
import { OutcomeWriter } from './outcome-writer.js';

/** The engine's dependencies; its channels close with `close`. */
export async function collectionEngine(db: Knex, cfg: WorkerConfig, log: Logger): Promise<EngineDeps & { close(): Promise<void> }> {
  const secretsKey = resolveSecretsKey(cfg);
  const channels = createChannels(cfg, secretsKey);
  const key = addressKey(cfg, secretsKey);
  return {
    db,
    log,
    channels,
    reconcileAfterSeconds: cfg.ENGINE_RECONCILE_AFTER_SECONDS,
    leaseSeconds: cfg.ENGINE_HAND_OVER_LEASE_SECONDS,
    // The SMTP pool's connections, twice over: one message waits while another is written.
    sendConcurrency: cfg.SMTP_MAX_CONNECTIONS * 2,
    clockOffsetSeconds: cfg.WORKER_CLOCK_OFFSET_SECONDS,
    retry: { baseSeconds: cfg.ENGINE_RETRY_BASE_SECONDS, maxSeconds: cfg.ENGINE_RETRY_MAX_SECONDS, windowSeconds: cfg.ENGINE_RETRY_HOURS * 3600 },
    outcomes: new OutcomeWriter(db, log),
    links: { replyAddress: (debtId) => replyAddress(debtId, key), portal: { baseUrl: cfg.PORTAL_BASE_URL, keys: linkTokenKeys(secretsKey) } },
    close: () => channels.close(),
  };
}
