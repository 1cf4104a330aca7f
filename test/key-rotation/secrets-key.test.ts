/**
 * Rotating `SECRETS_KEY` (deploy/README.md, "Rotating keys"; docs/api.md section 20): values sealed
 * with key A (a date of birth, a statement's money groups, a stored idempotent response, the OAuth
 * client's secret, the issuer's signing key, a webhook endpoint's current and previous signing
 * secrets) are sealed again with B by a worker started with `SECRETS_KEY=B,A`; the system then runs
 * with B alone and every read through the API gives the same answers. A value sealed with a key
 * the list lacks stops the worker with the one-line config error naming SECRETS_KEY.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { SEALED_COLUMNS } from '@dms/domain/kernel';
import { SecretBox } from '@dms/secrets';
import { freePort, startService } from '@dms/tools/processes';
import { createOwnDatabase, type OwnDatabase } from '../support/own-database.js';
import { startOwnSystem } from '../support/own-system.js';
import { SERVICE_ENV, seedParties } from '../support/harness.js';
import { createDebt } from '../support/debts.js';
import { monthly, statementBody } from '../circumstances/support.js';

const key = () => randomBytes(32).toString('base64');
const [A, B, C] = [key(), key(), key()];
const [boxA, boxB] = [new SecretBox(A), new SecretBox(B)];

let own: OwnDatabase;
/** What the system answered under key A, to compare with under B. */
const seen = {} as {
  client: { clientId: string; clientSecret: string };
  customerId: string;
  debtId: string;
  webhookId: string;
  secrets: string[];
  created: { body: Record<string, unknown>; response: unknown };
  customer: unknown;
  statements: unknown;
  ports: { auth: number; api: number };
};

beforeAll(async () => {
  own = await createOwnDatabase('rekey');
});
afterAll(async () => {
  await own?.drop();
});

/** The key ids the non-null values of each sealed column name, by `table.column`. */
async function keyIdsByColumn(): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const c of SEALED_COLUMNS) {
    const values: string[] = await own.db(c.table).whereNotNull(c.column).pluck(c.column);
    out[`${c.table}.${c.column}`] = [...new Set(values.map((v) => v.split('.')[1]!))];
  }
  return out;
}

/** A worker on the database with `secretsKey`, its time-driven changes limited to no tenant's. */
async function workerWith(secretsKey: string, env: Record<string, string>, port?: number) {
  return startService('worker', { ...env, SECRETS_KEY: secretsKey, ENGINE_ENABLED: 'false', WORKER_TENANT_IDS: 'ten_none' }, port);
}

test('values sealed with A are re-sealed with B by a worker started with B,A; with B alone every read answers the same', async () => {
  const sysA = await startOwnSystem(own.url, { env: { SECRETS_KEY: A } });
  try {
    const { api, client } = await sysA.signedInTenant();
    seen.client = client;
    const { organisationId } = await seedParties(api);
    seen.created = { body: { kind: 'individual', first_name: 'Rekey', last_name: 'Person', date_of_birth: '1970-03-04' }, response: undefined };
    const created = await api.post('/customers', seen.created.body).set('Idempotency-Key', 'rekey-create').expect(201);
    seen.created.response = created.body;
    seen.customerId = created.body.id;
    seen.debtId = (await createDebt(api, { organisationId, customerId: seen.customerId })).id;
    await api.post(`/debts/${seen.debtId}/income_and_expenditures`, statementBody({ income: { earnings: monthly(321_000) } })).expect(201);
    const hook = await api.post('/webhooks', { url: 'https://example.com/hooks', enabled_events: ['*'] }).expect(201);
    seen.webhookId = hook.body.id;
    const rotated = await api.post(`/webhooks/${seen.webhookId}/rotate_secret`).expect(200);
    seen.secrets = [rotated.body.signing_secret, hook.body.signing_secret];
    seen.customer = (await api.get(`/customers/${seen.customerId}`).expect(200)).body;
    seen.statements = (await api.get(`/debts/${seen.debtId}/income_and_expenditures`).expect(200)).body;
  } finally {
    await sysA.stop();
  }
  seen.ports = sysA.ports;
  // Every sealed column this run filled holds values of A only (the webhook's OAuth secret is unused).
  const before = await keyIdsByColumn();
  expect(Object.entries(before).filter(([, ids]) => ids.length)).toEqual(
    SEALED_COLUMNS.filter((c) => c.column !== 'oauth2_client_secret_ciphertext').map((c) => [`${c.table}.${c.column}`, [boxA.keyId]]),
  );

  const worker = await workerWith(`${B},${A}`, sysA.env);
  await worker.stop();
  const after = await keyIdsByColumn();
  expect(Object.values(after).flat()).not.toContain(boxA.keyId);
  expect(Object.entries(after).filter(([, ids]) => ids.length)).toEqual(
    Object.entries(before)
      .filter(([, ids]) => ids.length)
      .map(([c]) => [c, [boxB.keyId]]),
  );
  const [endpoint] = await own.db('webhook_endpoints').where({ id: seen.webhookId }).select('signing_secret_ciphertext', 'previous_signing_secret_ciphertext');
  expect([boxB.open(endpoint.signing_secret_ciphertext), boxB.open(endpoint.previous_signing_secret_ciphertext)]).toEqual(seen.secrets);
  // A second worker finds nothing left to do and changes nothing.
  const snapshot = await own.db('customers').where({ id: seen.customerId }).first('date_of_birth_encrypted');
  await (await workerWith(`${B},${A}`, sysA.env)).stop();
  expect(await own.db('customers').where({ id: seen.customerId }).first('date_of_birth_encrypted')).toEqual(snapshot);

  // B alone: the issuer opens its signing key and the client's secret, the API the rest.
  const sysB = await startOwnSystem(own.url, { env: { SECRETS_KEY: B }, ports: seen.ports });
  try {
    const api = await sysB.agentFor(seen.client);
    expect((await api.get(`/customers/${seen.customerId}`).expect(200)).body).toEqual(seen.customer);
    expect((await api.get(`/customers/${seen.customerId}`).expect(200)).body.date_of_birth).toBe('1970-03-04');
    expect((await api.get(`/debts/${seen.debtId}/income_and_expenditures`).expect(200)).body).toEqual(seen.statements);
    const replay = await api.post('/customers', seen.created.body).set('Idempotency-Key', 'rekey-create').expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(seen.created.response);
  } finally {
    await sysB.stop();
  }
});

test('a value sealed with a key SECRETS_KEY lacks stops the worker with the config error naming SECRETS_KEY and the key id', async () => {
  const boxC = new SecretBox(C);
  await own
    .db('customers')
    .where({ id: seen.customerId })
    .update({ date_of_birth_encrypted: boxC.seal('1970-03-04') });
  const port = await freePort();
  const env = { ...SERVICE_ENV, DATABASE_URL: own.url };
  await expect(workerWith(B, env, port)).rejects.toThrow(/exited with code 1/);
  const log = readFileSync(`${process.env.TEST_LOG_DIR ?? '.data/test-logs'}/worker-${port}.log`, 'utf8');
  expect(log).toContain(
    `config error: SECRETS_KEY: does not open customers.date_of_birth_encrypted (sealed with the key whose id is ${boxC.keyId}): list that key after the new one (SECRETS_KEY=new,old)`,
  );
  // Nothing was changed: the value still names C.
  expect((await own.db('customers').where({ id: seen.customerId }).first('date_of_birth_encrypted')).date_of_birth_encrypted).toMatch(`v1.${boxC.keyId}.`);
});
