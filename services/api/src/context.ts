/**
 * What route modules receive: the database and the settings they need. Passed explicitly (no
 * module-level singletons), so a test or tool can build several apps side by side.
 */
import type { Knex } from '@dms/db';
import type { RefundThrough } from '@dms/domain/payments';
import type { SecretBox } from '@dms/secrets';
import type { ApiConfig } from './config.js';
import type { RedisConnection } from './redis.js';

/** What the operational endpoints read, set up by `createApp` (docs/api.md section 1). */
export interface AppRuntime {
  /** The Prometheus registry of this process, in text exposition format. */
  metricsText: () => Promise<{ contentType: string; body: string }>;
  /** True once the process has begun to drain (readiness turns 503). */
  isDraining: () => boolean;
  /** The OpenAPI document, serialized once. */
  openapiJson: string;
}

/** Dependencies of the API's routers and middleware, built once in server.ts. */
export interface AppContext {
  db: Knex;
  cfg: ApiConfig;
  /** Seals secrets at rest with `SECRETS_KEY` (webhook secrets, stored idempotent responses). */
  box: SecretBox;
  /** The refund of a payment provider's payment by the provider's name (payments.ts `providerRefunds`). */
  payments: RefundThrough;
  /** Shared rate-limit store when `REDIS_URL` is set. */
  redis?: RedisConnection;
  /** Set by `createApp`; absent in contexts built for tools (the seed). */
  runtime?: AppRuntime;
}
