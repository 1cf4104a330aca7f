/**
 * Each message the engine sends carries its own portal link (docs/api.md sections 13 and 18): the
 * email received holds `<PORTAL_BASE_URL>/l/<token>`; the stored communication (and the API's view
 * of it) holds `[link-token]` in its place and no table holds the token; the link is bound to the
 * customer, the debt and the communication; opening it in the portal and answering the date of
 * birth shows that debt. A re-send after a temporary refusal carries the same link again.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import request from 'supertest';
import { hashToken } from '@dms/domain/portal';
import { closeHarness, signedInTenant, testDb } from '../support/harness.js';
import { communicationsOf, customerWith, engineRig, offsetToLondon, preparedDebt, statusBecomes, type EngineRig } from '../engine/support.js';
import { startPortal, type RunningPortal } from './steps-support.js';

const PORTAL = 'https://account.engine.test';
const LINK = /https:\/\/account\.engine\.test\/l\/([A-Za-z0-9_-]{43})/;

let rig: EngineRig;
let t: Awaited<ReturnType<typeof signedInTenant>>;
let portal: RunningPortal;
let base: string;

beforeAll(async () => {
  rig = await engineRig();
  t = await signedInTenant();
  portal = await startPortal();
  base = portal.base;
});

afterAll(async () => {
  await portal?.stop();
  await rig?.stop();
  await closeHarness();
});

/** Every text column of `table` that holds `needle` (PostgreSQL's own catalogue lists them). */
async function tablesHolding(needle: string): Promise<string[]> {
  const columns = (await testDb().raw(
    `SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = current_schema() AND data_type IN ('text', 'character varying', 'jsonb', 'json')`,
  )) as { rows: Array<{ table_name: string; column_name: string }> };
  const found: string[] = [];
  for (const { table_name, column_name } of columns.rows) {
    const hit = await testDb().raw(`SELECT 1 FROM "${table_name}" WHERE "${column_name}"::text LIKE ? LIMIT 1`, [`%${needle}%`]);
    if ((hit as { rows: unknown[] }).rows.length) found.push(`${table_name}.${column_name}`);
  }
  return found;
}

test('the email carries a link of its own; only its hash is stored; it opens the debt in the portal', async () => {
  const org = (await t.api.post('/organisations', { name: 'Link Energy Ltd', customer_facing_name: 'Link Energy' }).expect(201)).body.id;
  const customer = await customerWith(t.api, [{ type: 'email', value: 'lee@example.org', primary: true }], { date_of_birth: '1984-06-02' });
  const debt = await preparedDebt(t.api, org, customer);
  await rig.worker([t.tenant.tenantId], offsetToLondon(12), { PORTAL_BASE_URL: PORTAL });
  await statusBecomes(debt, 'contacted', 60_000);
  const [com] = await communicationsOf(debt);
  const mails = (await (await fetch(`${rig.channels.mail.webUrl}/api/messages?limit=100`)).json()) as Array<{ id: string; messageId: string }>;
  const mail = mails.find((m) => m.messageId === com.provider_reference)!;
  const raw = await (await fetch(`${rig.channels.mail.webUrl}/api/messages/${encodeURIComponent(mail.id)}/raw`)).text();
  const token = LINK.exec(raw.replace(/=\r?\n/g, ''))?.[1];
  expect(token).toBeDefined();

  // Stored and shown without the token; the link row is the message's own.
  expect(com.body).toContain(`${PORTAL}/l/[link-token]`);
  const shown = await t.api.get(`/communications/${com.id}`).expect(200);
  expect(shown.body.body).toContain('/l/[link-token]');
  expect(await tablesHolding(token!)).toEqual([]);
  const link = await testDb()('portal_links')
    .where({ token_hash: hashToken(token!) })
    .first();
  expect(link).toMatchObject({ tenant_id: t.tenant.tenantId, customer_id: customer, debt_id: debt, communication_id: com.id, mode: 'live' });

  // The customer opens it and answers their date of birth: their debt, not a JSON 401.
  const agent = request.agent(base);
  expect((await agent.get(`/l/${token}`).expect(303)).headers.location).toBe('/verify');
  const page = await agent.get('/verify').expect(200);
  expect(page.headers['content-type']).toMatch(/^text\/html/);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1]!;
  await agent.post('/verify').type('form').send({ _csrf: csrf, answer: '1984-06-02' }).expect(303);
  const debts = await agent.get('/debts').expect(200);
  expect(debts.text).toContain('Link Energy');
});

test('a re-send after the provider refused for a while carries the same link', async () => {
  // A tenant of its own: the first test's worker (retrying after a minute) must not take this debt.
  const t = await signedInTenant();
  const steps = [{ day: 0, delivery_method: 'sms', template: 'default-sms-reminder' }];
  const org = (await t.api.post('/organisations', { name: 'Resend Ltd', configurations: { collection_strategy: { steps } } }).expect(201)).body.id;
  const debt = await preparedDebt(t.api, org, await customerWith(t.api, [{ type: 'mobile_number', value: '+447911123471' }]));
  const outage = await fetch(`${rig.channels.sms.url}/_standin/outage`, { method: 'POST', body: JSON.stringify({ status: 503, count: 1 }) });
  expect(outage.status).toBe(204);
  await rig.worker([t.tenant.tenantId], offsetToLondon(12), {
    PORTAL_BASE_URL: PORTAL,
    ENGINE_RETRY_BASE_SECONDS: '1',
    ENGINE_RETRY_MAX_SECONDS: '2',
    ENGINE_RECONCILE_AFTER_SECONDS: '3600',
  });
  await statusBecomes(debt, 'contacted', 60_000);
  const [sms] = await communicationsOf(debt);
  expect(sms.attempts).toBe(2);
  const received = rig.channels.sms.messages().filter((m) => m.clientRef === sms.id);
  expect(received).toHaveLength(1);
  const token = LINK.exec(received[0]!.text)?.[1];
  const link = await testDb()('portal_links')
    .where({ token_hash: hashToken(token ?? '') })
    .first();
  expect(link).toMatchObject({ communication_id: sms.id, debt_id: debt });
  expect(sms.body).toContain('/l/[link-token]');
});
