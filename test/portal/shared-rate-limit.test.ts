/**
 * The portal's rate limits shared by several portal instances through Redis (`REDIS_URL`,
 * docs/api.md section 18): two portal processes on one Redis count one budget of POSTs per
 * address and one budget of openings per link, as the API's instances do
 * (test/rate-limit/rate-limit.test.ts). Skipped, with the reason printed, without a local Redis.
 *
 * Addresses (`X-Forwarded-For` from a loopback peer, the default `TRUST_PROXY`) are random per run,
 * so budgets left in Redis by an earlier run within the window count for nothing here.
 */
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import { createPortalLink } from '@dms/domain/portal';
import { startService, type RunningService } from '@dms/tools/processes';
import { SERVICE_ENV, closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { REDIS_URL, canReachRedis } from '../rate-limit/redis.js';

const redisUp = await canReachRedis();
const started: RunningService[] = [];

/** A random private address no other run or test uses within a window. */
const address = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
  await closeHarness();
});

describe('several portal instances', () => {
  if (!redisUp) console.warn(`SKIPPED: shared portal rate-limit test: no Redis at ${REDIS_URL} (start redis-server to run it).`);
  let one: RunningService;
  let two: RunningService;

  beforeAll(async () => {
    if (!redisUp) return;
    const env = {
      ...SERVICE_ENV,
      REDIS_URL,
      WEB_CONCURRENCY: '1',
      PORTAL_RATE_LIMIT_POSTS: '3',
      PORTAL_RATE_LIMIT_PER_LINK: '2',
      PORTAL_RATE_LIMIT_WINDOW_SECONDS: '600',
    };
    // One after the other: starting processes side by side only slows both on a small machine.
    one = await startService('portal', env);
    started.push(one);
    two = await startService('portal', env);
    started.push(two);
  });

  (redisUp ? test : test.skip)('share one budget of POSTs per address through Redis (REDIS_URL)', async () => {
    const from = address();
    const signOut = (instance: RunningService) => request(instance.url).post('/sign-out').set('X-Forwarded-For', from);
    // Without a CSRF token each is refused (403), and each counts: 3 in all, whichever instance.
    for (const instance of [one, two, one]) await signOut(instance).expect(403);
    for (const instance of [two, one]) {
      const refused = await signOut(instance).expect(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.text).toContain('Too many attempts');
    }
    // Another address has its own budget.
    await request(two.url).post('/sign-out').set('X-Forwarded-For', address()).expect(403);
  });

  (redisUp ? test : test.skip)('share one budget of openings per link through Redis', async () => {
    const me = await signedInTenant();
    const { customerId } = await seedParties(me.api);
    const { token } = await createPortalLink(testDb(), { tenantId: me.tenant.tenantId, customerId, ttlDays: 1 });
    const open = (instance: RunningService) => request(instance.url).get(`/l/${token}`).set('X-Forwarded-For', address());
    await open(one).expect(303);
    await open(two).expect(303);
    await open(one).expect(429);
    await open(two).expect(429);
  });
});
