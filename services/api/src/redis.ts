/**
 * The optional Redis connection of the API (`REDIS_URL`), used for rate-limit budgets shared by
 * several API instances; shared with the issuer through @dms/rate-limit.
 */
export { connectRedis, type RedisConnection } from '@dms/rate-limit';
