/**
 * The public API's version `2025-04-01` beside ours (docs/api.md section 15): `Ophelos-Version`
 * read as `Api-Version`; each entry of the versions table checked under both versions (debt lists
 * of ids, line items' `debt_id`/`invoice_id`, `object: "webhook"`, the event envelope), and a
 * `v20250401` endpoint receiving that envelope from a real dispatcher while a `v20261101` one keeps ours.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { RunningService } from '@dms/tools/processes';
import { closeHarness, seedParties, signedInTenant } from '../support/harness.js';
import { createDebt, type Parties } from '../support/debts.js';
import { eventually } from '../support/eventually.js';
import { startDispatcher, startReceiver, type Receiver } from '../support/webhook-receiver.js';

type Tenant = Awaited<ReturnType<typeof signedInTenant>>;
const OLD = '2025-04-01';
let main: Tenant;
let parties: Parties;
const dispatchers: RunningService[] = [];
const receivers: Receiver[] = [];

beforeAll(async () => {
  main = await signedInTenant();
  parties = await seedParties(main.api);
});
afterAll(async () => {
  await Promise.all(dispatchers.map((d) => d.stop()));
  await Promise.all(receivers.map((r) => r.close()));
  await closeHarness();
});

/** A debt with one payment, one invoice (with a line item) and one plan. */
async function fullDebt() {
  const debt = await createDebt(main.api, parties, { breakdown: { principal: 9000 } });
  await main.api.post(`/debts/${debt.id}/ready`).expect(200);
  const invoice = (await main.api.post(`/debts/${debt.id}/invoices`, { reference: 'INV-1', line_items: [{ kind: 'fee', amount: 1000 }] }).expect(201)).body;
  const payment = (await main.api.post(`/debts/${debt.id}/payments`, { amount: 1000, currency: 'GBP' }).expect(201)).body;
  const start = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const plan = (await main.api.post(`/debts/${debt.id}/payment_plans`, { frequency: 'monthly', start_on: start, instalment_count: 3 }).expect(201)).body;
  return { debt, invoice, payment, plan };
}

describe('Ophelos-Version', () => {
  test('is read as Api-Version and echoed in both headers', async () => {
    const res = await main.api.get('/tenants/me').set('Ophelos-Version', OLD).expect(200);
    expect(res.headers['api-version']).toBe(OLD);
    expect(res.headers['ophelos-version']).toBe(OLD);
    const ours = await main.api.get('/tenants/me').set('Api-Version', OLD).expect(200);
    expect(ours.headers['api-version']).toBe(OLD);
    expect(ours.headers['ophelos-version']).toBeUndefined();
  });

  test('an unknown one is 400 naming Ophelos-Version; disagreeing with Api-Version is 400 too', async () => {
    const bad = await main.api.get('/tenants/me').set('Ophelos-Version', '2024-01-01').expect(400);
    expect(bad.body).toMatchObject({ code: 'unsupported_api_version', param: 'Ophelos-Version' });
    const both = await main.api.get('/tenants/me').set('Ophelos-Version', OLD).set('Api-Version', '2026-11-01').expect(400);
    expect(both.body).toMatchObject({ code: 'unsupported_api_version', param: 'Ophelos-Version' });
    await main.api.get('/tenants/me').set('Ophelos-Version', OLD).set('Api-Version', OLD).expect(200);
  });
});

describe('the versions table, entry by entry', () => {
  test('debt: lists of ids under 2025-04-01 unless expanded; absent under 2026-11-01', async () => {
    const { debt, invoice, payment, plan } = await fullDebt();
    const ours = (await main.api.get(`/debts/${debt.id}`).expect(200)).body;
    for (const k of ['invoices', 'line_items', 'payments', 'payment_plans']) expect(ours[k]).toBeUndefined();

    const old = (await main.api.get(`/debts/${debt.id}`).set('Ophelos-Version', OLD).expect(200)).body;
    expect(old.invoices).toEqual([invoice.id]);
    expect(old.payments).toEqual([payment.id]);
    expect(old.payment_plans).toEqual([plan.id]);
    expect(old.line_items).toHaveLength(2);
    expect(old.line_items.every((id: unknown) => typeof id === 'string' && id.startsWith('li_'))).toBe(true);
    expect(old.customer).toBe(parties.customerId);

    const expanded = (await main.api.get(`/debts/${debt.id}`).query({ 'expand[]': 'payments' }).set('Ophelos-Version', OLD).expect(200)).body;
    expect(expanded.payments).toEqual([expect.objectContaining({ id: payment.id, object: 'payment', amount: 1000 })]);
    expect(expanded.invoices).toEqual([invoice.id]);

    const list = (await main.api.get('/debts').query({ limit: 100 }).set('Ophelos-Version', OLD).expect(200)).body;
    expect(list.object).toBe('list');
    expect(list.data.find((d: { id: string }) => d.id === debt.id).payments).toEqual([payment.id]);
  });

  test('line items: debt_id and invoice_id under 2025-04-01, debt and invoice under ours', async () => {
    const { debt, invoice } = await fullDebt();
    const ours = (await main.api.get(`/debts/${debt.id}/line_items`).expect(200)).body.data;
    expect(ours.find((li: { kind: string }) => li.kind === 'fee')).toMatchObject({ debt: debt.id, invoice: invoice.id });
    const old = (await main.api.get(`/debts/${debt.id}/line_items`).set('Ophelos-Version', OLD).expect(200)).body.data;
    const fee = old.find((li: { kind: string }) => li.kind === 'fee');
    expect(fee).toMatchObject({ object: 'line_item', debt_id: debt.id, invoice_id: invoice.id });
    expect(fee.debt).toBeUndefined();
    expect(fee.invoice).toBeUndefined();
    expect(old.find((li: { kind: string }) => li.kind === 'debt').invoice_id).toBeNull();
  });

  test('webhook endpoint: object "webhook" under 2025-04-01, "webhook_endpoint" under ours', async () => {
    const created = await main.api
      .post('/webhooks', { url: 'https://example.com/old', enabled_events: ['*'] })
      .set('Ophelos-Version', OLD)
      .expect(201);
    expect(created.body.object).toBe('webhook');
    expect(created.body.signing_secret).toMatch(/^whsec_/);
    expect((await main.api.get(`/webhooks/${created.body.id}`).set('Ophelos-Version', OLD).expect(200)).body.object).toBe('webhook');
    expect((await main.api.get(`/webhooks/${created.body.id}`).expect(200)).body.object).toBe('webhook_endpoint');
  });

  test('livemode: on every object under 2025-04-01 too, expanded ones and relations of relations included', async () => {
    const { debt, payment } = await fullDebt();
    const one = (
      await main.api
        .get(`/debts/${debt.id}`)
        .query({ 'expand[]': ['customer', 'payments'] })
        .set('Ophelos-Version', OLD)
        .expect(200)
    ).body;
    expect([one.livemode, one.customer.livemode, one.payments[0].livemode]).toEqual([true, true, true]);
    const deep = (await main.api.get('/payments').query({ 'expand[]': 'debt.customer', limit: 100 }).set('Ophelos-Version', OLD).expect(200)).body.data.find(
      (p: { id: string }) => p.id === payment.id,
    );
    expect(deep).toMatchObject({ livemode: true, debt: { id: debt.id, livemode: true, customer: { livemode: true } } });
    // The client's metadata keys are its own, even one named `object`.
    await main.api.patch(`/debts/${debt.id}/payments/${payment.id}`, { metadata: { object: 'x' } }).expect(200);
    const meta = (await main.api.get(`/debts/${debt.id}/payments/${payment.id}`).set('Ophelos-Version', OLD).expect(200)).body;
    expect(meta.metadata).toEqual({ object: 'x' });
    // Ours shows the same, relations of relations included.
    const ours = (await main.api.get(`/payments/${payment.id}`).query({ 'expand[]': 'debt.customer' }).expect(200)).body;
    expect([ours.livemode, ours.debt.livemode, ours.debt.customer.livemode]).toEqual([true, true, true]);
  });

  test('event: the public API envelope under 2025-04-01, ours under 2026-11-01', async () => {
    const org = (await main.api.post('/organisations', { name: 'Envelope Ltd' }).expect(201)).body;
    const events = (await main.api.get('/events').query({ limit: 100 }).expect(200)).body.data;
    const ev = events.find((e: { data: { object: { id: string } } }) => e.data.object.id === org.id);
    expect(ev).toMatchObject({ object: 'event', type: 'organisation.created', api_version: '2026-11-01', data: { object: { id: org.id } } });
    const old = (await main.api.get(`/events/${ev.id}`).set('Ophelos-Version', OLD).expect(200)).body;
    expect(old).toEqual({ id: ev.id, object: 'event', type: 'organisation.created', created_at: ev.created_at, livemode: true, data: ev.data.object });
  });
});

test('a v20250401 endpoint receives the public API envelope, a v20261101 one ours (real deliveries)', async () => {
  const [oldReceiver, newReceiver] = await Promise.all([startReceiver(), startReceiver()]);
  receivers.push(oldReceiver, newReceiver);
  const events = ['line_item.created'];
  const oldEp = (await main.api.post('/webhooks', { url: oldReceiver.hookUrl, enabled_events: events, version: 'v20250401' }).expect(201)).body;
  expect(oldEp.version).toBe('v20250401');
  oldReceiver.setSigningSecret(oldEp.signing_secret);
  const newEp = (await main.api.post('/webhooks', { url: newReceiver.hookUrl, enabled_events: events }).expect(201)).body;
  expect(newEp.version).toBe('v20261101');
  newReceiver.setSigningSecret(newEp.signing_secret);
  dispatchers.push(await startDispatcher([main.tenant.tenantId], { DISPATCH_SCHEDULE_SECONDS: '0,1,1', DISPATCH_JITTER: '0' }));

  const debt = await createDebt(main.api, parties, { breakdown: { principal: 500 } });
  await eventually(() => oldReceiver.received.length === 1 && newReceiver.received.length === 1, 'both deliveries');
  const [old] = oldReceiver.received;
  const [ours] = newReceiver.received;
  expect(old!.verified && ours!.verified).toBe(true);
  expect(Object.keys(old!.event).sort()).toEqual(['created_at', 'data', 'id', 'livemode', 'object', 'type']);
  expect(old!.event).toMatchObject({
    object: 'event',
    type: 'line_item.created',
    livemode: true,
    data: { object: 'line_item', debt_id: debt.id, invoice_id: null },
  });
  expect(Object.keys(ours!.event).sort()).toEqual(['api_version', 'created_at', 'data', 'id', 'livemode', 'object', 'type']);
  expect(ours!.event).toMatchObject({ api_version: '2026-11-01', data: { object: { object: 'line_item', debt: debt.id } } });
  expect(old!.event.id).toBe(ours!.event.id);
});
