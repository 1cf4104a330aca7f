/**
 * The issuer caches client lookups in each process, and client changes still take effect at once
 * on every instance (docs/api.md section 2): each change NOTIFYs `oauth_clients_changed` in its
 * transaction and every issuer drops the client when the notification arrives; while an issuer's
 * LISTEN connection is down it reads the database on every request. Two issuer instances here, on
 * the test database; the waits are only for the notification's round trip (at most 5 s on a loaded machine).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import request from 'supertest';
import { startService, type RunningService } from '@dms/tools/processes';
import { OAUTH_CLIENTS_CHANNEL, revokeClient, rotateClientSecret } from '@dms/auth/domain';
import { SecretBox } from '@dms/secrets';
import { AUDIENCE, SERVICE_ENV, closeHarness, newTenant, testDb, type TestTenant } from '../support/harness.js';
import { eventually } from '../support/eventually.js';

const NOTIFY_ROUND_TRIP_MS = 5_000;
const issuers: RunningService[] = [];

beforeAll(async () => {
  issuers.push(...(await Promise.all([startService('auth', SERVICE_ENV), startService('auth', SERVICE_ENV)])));
});

afterAll(async () => {
  await Promise.all(issuers.map((s) => s.stop()));
  await closeHarness();
});

/** Status of a client_credentials token request to issuer `i` with HTTP Basic `id`:`secret`. */
async function tokenStatus(i: number, id: string, secret: string): Promise<number> {
  const res = await request(issuers[i]!.url).post('/oauth/token').auth(id, secret).type('form').send({ grant_type: 'client_credentials', audience: AUDIENCE });
  if (res.status === 401) expect(res.body.error).toBe('invalid_client');
  return res.status;
}

/** Token requests on both issuers (twice each, so the second is answered from the cache). */
async function statusOnBoth(t: Pick<TestTenant, 'clientId' | 'clientSecret'>): Promise<number[]> {
  const out: number[] = [];
  for (const i of [0, 1]) for (let n = 0; n < 2; n++) out.push(await tokenStatus(i, t.clientId, t.clientSecret));
  return out;
}

/** Waits (at most the NOTIFY round trip) until both issuers answer `status` for these credentials. */
async function bothAnswer(status: number, id: string, secret: string): Promise<void> {
  await eventually(
    async () => (await tokenStatus(0, id, secret)) === status && (await tokenStatus(1, id, secret)) === status,
    `both issuers answer ${status}`,
    NOTIFY_ROUND_TRIP_MS,
  );
}

/** Revokes a client behind the issuers' backs: the row changes, no notification is sent. */
async function revokeSilently(clientId: string): Promise<void> {
  await testDb()('oauth_clients').where({ client_id: clientId }).update({ revoked_at: testDb().fn.now() });
}

const lostLines = (s: RunningService) => readFileSync(s.logFile, 'utf8').split('listener connection lost').length - 1;

/** Issuer LISTEN connections on the test database (the global issuer's and these two). */
async function listeners(): Promise<number> {
  const { rows } = await testDb().raw(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'dms-auth-listen' AND query = ?",
    [`LISTEN ${OAUTH_CLIENTS_CHANNEL}`],
  );
  return rows[0].n as number;
}

describe('client cache across two issuer instances', () => {
  test('the cache is in use: a change without NOTIFY is not seen until the notification arrives', async () => {
    const t = await newTenant();
    expect(await statusOnBoth(t)).toEqual([200, 200, 200, 200]);
    await revokeSilently(t.clientId);
    expect(await statusOnBoth(t)).toEqual([200, 200, 200, 200]);
    await testDb().raw('SELECT pg_notify(?, ?)', [OAUTH_CLIENTS_CHANNEL, t.clientId]);
    await bothAnswer(401, t.clientId, t.clientSecret);
  });

  test('revokeClient: both instances refuse the client at once', async () => {
    const t = await newTenant();
    expect(await statusOnBoth(t)).toEqual([200, 200, 200, 200]);
    await revokeClient(testDb(), t.clientId);
    await bothAnswer(401, t.clientId, t.clientSecret);
    expect(await statusOnBoth(t)).toEqual([401, 401, 401, 401]);
  });

  test('rotateClientSecret: the old secret is refused and the new one accepted on both instances', async () => {
    const t = await newTenant();
    expect(await statusOnBoth(t)).toEqual([200, 200, 200, 200]);
    const box = new SecretBox(SERVICE_ENV.SECRETS_KEY!);
    const rotated = await rotateClientSecret(testDb(), box, { issuer: SERVICE_ENV.AUTH_ISSUER!, audience: AUDIENCE }, t.clientId);
    await bothAnswer(401, t.clientId, t.clientSecret);
    await bothAnswer(200, t.clientId, rotated.client_secret);
    expect(await statusOnBoth({ clientId: t.clientId, clientSecret: rotated.client_secret })).toEqual([200, 200, 200, 200]);
    expect(await statusOnBoth(t)).toEqual([401, 401, 401, 401]);
  });

  test('a lost LISTEN connection empties and bypasses the cache: a change nobody was notified of is seen', async () => {
    const t = await newTenant();
    expect(await statusOnBoth(t)).toEqual([200, 200, 200, 200]);
    const before = await listeners();
    const lost = issuers.map(lostLines);
    await testDb().raw("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'dms-auth-listen'");
    await eventually(() => issuers.every((s, i) => lostLines(s) > lost[i]!), 'both issuers notice the lost connection', 5_000);
    // Listeners reconnect after 1 s: this change happens while nobody listens, so its only trace is the row.
    await revokeSilently(t.clientId);
    expect(await statusOnBoth(t)).toEqual([401, 401, 401, 401]);

    // Listening again: notified changes take effect at once as before.
    await eventually(async () => (await listeners()) >= before, 'the issuers listen again', 10_000);
    const u = await newTenant();
    expect(await statusOnBoth(u)).toEqual([200, 200, 200, 200]);
    await revokeClient(testDb(), u.clientId);
    await bothAnswer(401, u.clientId, u.clientSecret);
  });
});
