/**
 * What route modules receive: the database and the settings they need. Passed explicitly (no
 * module-level singletons), so a test or tool can build several apps side by side.
 */
import type { Knex } from '@dms/db';
import type { SecretBox } from '@dms/secrets';
import type { ApiConfig } from './config.js';
import type { RedisConnection } from './redis.js';

/** Dependencies of the API's routers and middleware, built once in server.ts. */
export interface AppContext {
  db: Knex;
  cfg: ApiConfig;
  /** Seals secrets at rest with `SECRETS_KEY` (webhook secrets, stored idempotent responses). */
  box: SecretBox;
  /** Shared rate-limit store when `REDIS_URL` is set. */
  redis?: RedisConnection;
}
