/**
 * The customer access log (docs/api.md section 20, "Access log"): every read of a customer's
 * personal data by an operator token is recorded (who, which customer, which operation, when);
 * the portal records its reads through `recordAccess`; a tenant's own reads are not recorded;
 * `GET /customers/{id}/access_log` pages it newest first; the application's role can neither
 * UPDATE nor DELETE a row.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { recordAccess } from '@dms/domain/personal-data';
import { closeHarness, newOperator, operatorAs, seedParties, signedInTenant, testDb, tokenFor } from '../support/harness.js';

afterAll(closeHarness);

let acme: Awaited<ReturnType<typeof signedInTenant>>;
let globex: Awaited<ReturnType<typeof signedInTenant>>;
let operatorId: string;
let operatorToken: string;
let customerId: string;

beforeAll(async () => {
  [acme, globex] = await Promise.all([signedInTenant(), signedInTenant()]);
  const operator = await newOperator();
  operatorId = operator.clientId;
  operatorToken = await tokenFor(operator);
  ({ customerId } = await seedParties(acme.api));
  await acme.api.post(`/customers/${customerId}/contact_details`, { type: 'email', value: 'ada@example.com' }).expect(201);
});

type Entry = { id: string; object: string; customer_id: string; actor: string; operation: string; created_at: string };
const logOf = async (id: string, query = ''): Promise<Entry[]> => (await acme.api.get(`/customers/${id}/access_log${query}`).expect(200)).body.data;

describe('GET /customers/{id}/access_log', () => {
  test("a tenant's own reads are not recorded", async () => {
    const { customerId: quiet } = await seedParties(acme.api);
    await acme.api.get(`/customers/${quiet}`).expect(200);
    await acme.api.get(`/customers/${quiet}/contact_details`).expect(200);
    expect(await logOf(quiet)).toEqual([]);
  });

  test("an operator's reads of the customer, its contact details and a list showing it are each recorded, newest first", async () => {
    const ops = operatorAs(operatorToken, acme.tenant.tenantId);
    await ops.get(`/customers/${customerId}`).expect(200);
    await ops.get(`/customers/${customerId}/contact_details`).expect(200);
    await ops.get('/customers?limit=100').expect(200);
    const log = await logOf(customerId);
    expect(log.map((e) => e.operation)).toEqual(['listCustomers', 'listContactdetails', 'retrieveCustomer']);
    for (const e of log) {
      expect(e).toMatchObject({ object: 'customer_access', customer_id: customerId, actor: `operator:${operatorId}` });
      expect(e.id).toMatch(/^cal_/);
      expect(Date.now() - Date.parse(e.created_at)).toBeLessThan(60_000);
    }
  });

  test('a portal session read recorded through recordAccess is listed, and pages keyset by keyset', async () => {
    await recordAccess(testDb(), { tenant: acme.tenant.tenantId, customerId, actor: 'portal:pss_test', operation: 'portal.account' });
    const [newest] = await logOf(customerId);
    expect(newest).toMatchObject({ actor: 'portal:pss_test', operation: 'portal.account' });
    const first = await acme.api.get(`/customers/${customerId}/access_log?limit=2`).expect(200);
    expect(first.body.data).toHaveLength(2);
    expect(first.headers['link']).toContain('rel="next"');
    const next = await acme.api.get(`/customers/${customerId}/access_log?limit=2&after=${first.body.data[1].id}`).expect(200);
    expect(next.body.data.map((e: Entry) => e.id)).toEqual((await logOf(customerId)).slice(2, 4).map((e) => e.id));
  });

  test("another tenant's customer is 404, and an unknown cursor 400", async () => {
    const res = await globex.api.get(`/customers/${customerId}/access_log`).expect(404);
    expect(res.body.code).toBe('resource_missing');
    const bad = await acme.api.get(`/customers/${customerId}/access_log?after=cal_000000000000000000000000`).expect(400);
    expect(bad.body).toMatchObject({ code: 'invalid_cursor', param: 'after' });
  });
});

describe('append-only', () => {
  test("the application's role can neither UPDATE nor DELETE an entry", async () => {
    const [entry] = await logOf(customerId);
    const db = testDb();
    await expect(db('customer_access_log').where({ id: entry!.id }).update({ actor: 'someone else' })).rejects.toThrow(/append-only/);
    await expect(db('customer_access_log').where({ id: entry!.id }).delete()).rejects.toThrow(/append-only/);
    const [row] = await db('customer_access_log').where({ id: entry!.id });
    expect(row.actor).toBe(entry!.actor);
  });
});
