/**
 * Prometheus metrics of the issuer: token issuance by outcome, plus the shared HTTP latency.
 */
import { Counter, createServiceMetrics, type PoolReading } from '@dms/metrics';

/**
 * The issuer's metric registry and instruments.
 * @param readPool the database pool's usage, read at scrape time (`db_pool_*`)
 */
export function createIssuerMetrics(readPool?: () => PoolReading) {
  const { registry, httpDuration } = createServiceMetrics('auth', readPool);
  return {
    registry,
    requestDuration: httpDuration,
    tokensIssued: new Counter({
      name: 'oauth_tokens_issued_total',
      help: 'Access tokens issued, by grant type',
      labelNames: ['grant_type'],
      registers: [registry],
    }),
    tokenErrors: new Counter({
      name: 'oauth_token_errors_total',
      help: 'Token requests refused, by RFC 6749 error code',
      labelNames: ['error'],
      registers: [registry],
    }),
  };
}

export type IssuerMetrics = ReturnType<typeof createIssuerMetrics>;
