/**
 * Prometheus metrics of the issuer: token issuance by outcome and request latency.
 */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The issuer's metric registry and instruments. */
export function createIssuerMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    tokensIssued: new Counter({
      name: 'oauth_tokens_issued_total',
      help: 'Access tokens issued, by client grant type',
      labelNames: ['grant_type'],
      registers: [registry],
    }),
    tokenErrors: new Counter({
      name: 'oauth_token_errors_total',
      help: 'Token requests refused, by RFC 6749 error code',
      labelNames: ['error'],
      registers: [registry],
    }),
    requestDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration in seconds, by route and status',
      labelNames: ['route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
  };
}

export type IssuerMetrics = ReturnType<typeof createIssuerMetrics>;
