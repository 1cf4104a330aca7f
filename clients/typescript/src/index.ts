/**
 * `@dms/client`: the typed TypeScript client of the Debt Management Service API (README, "Use it
 * from TypeScript"). Types come from the API's OpenAPI document (`npm run client:generate`).
 */
export { createDmsClient, nextLink, DmsApiError, type DmsClient, type DmsClientOptions, type ListItem, type ListPath, type PageInit } from './client.js';
export { clientCredentials, TokenRequestError, type ClientCredentialsOptions, type TokenSource } from './credentials.js';
export { withRetries, retryAfterMs, RETRIED_STATUSES, type RetryOptions } from './retry.js';
export { verifyStandardWebhook, verifyHmacSha256HexWebhook, WebhookVerificationError, HMAC_SHA256_HEX_HEADER, type VerifyOptions } from './webhooks.js';
export type { paths, components, operations } from './schema.js';
