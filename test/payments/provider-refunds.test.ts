/**
 * Refunds of provider payments (docs/api.md sections 8 and 18 "Payments", refunds) over HTTP with
 * the real API and PostgreSQL: `POST /debts/{debtId}/payments/{id}/refund` of a payment of the
 * API's payment provider refunds it there first (the suite's API: `local`; an extra API with
 * `PAYMENT_PROVIDER=stripe` against the local fake of Stripe), then moves the ledger and stores a
 * `payment_refunds` row in one transaction; a refusal is 402 and an unreachable provider 502, each
 * changing nothing. Only a payment the platform took through its provider (`provider_managed`) goes
 * there: one the tenant recorded is refunded in the ledger only, even under the configured
 * provider's name with a reference the provider knows, and no request body can set the mark.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import { localCallbackSecret, localProvider, stripeProvider } from '@dms/payments';
import { providerRefundKey } from '@dms/domain/payments';
import { recordProviderOutcome, startPortalPayment } from '@dms/domain/portal';
import { SERVICE_ENV, apiAs, closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { createDebt, eventTypesFor } from '../support/debts.js';
import { startFakeStripe, type FakeStripe, type RefundFailure } from '../support/fake-stripe.js';
import { serviceSet } from '../support/services.js';
import { confirmPayment, csrfOf, signedIn, startPortal, type RunningPortal } from '../portal/steps-support.js';

const services = serviceSet();
let fake: FakeStripe;
let portal: RunningPortal;
let me: Awaited<ReturnType<typeof signedInTenant>>;
let parties: { organisationId: string; customerId: string };
/** The tenant's agent on the extra API whose provider is `stripe` (the fake). */
let stripeApi: ReturnType<typeof apiAs>;

beforeAll(async () => {
  fake = await startFakeStripe();
  const stripeSettings = {
    PAYMENT_PROVIDER: 'stripe',
    STRIPE_SECRET_KEY: 'sk_test_fake',
    STRIPE_WEBHOOK_SECRET: 'whsec_fake',
    STRIPE_API_HOST: '127.0.0.1',
    STRIPE_API_PORT: String(fake.port),
    STRIPE_API_PROTOCOL: 'http',
  };
  const [api, tenant] = await Promise.all([services.start('api', { ...SERVICE_ENV, ...stripeSettings }), signedInTenant()]);
  me = tenant;
  stripeApi = apiAs(me.token, api.url);
  parties = await seedParties(me.api);
  await me.api.patch(`/customers/${parties.customerId}`, { date_of_birth: '1980-03-27' }).expect(200);
  portal = await startPortal({ payments: localProvider(localCallbackSecret('portal-secret')) });
});

afterAll(async () => {
  await portal?.stop();
  await services.stopAll();
  await fake?.close();
  await closeHarness();
});

/** A debt of 100.00 GBP that accepts payments. */
async function readyDebt(): Promise<string> {
  const debt = await createDebt(me.api, parties);
  await me.api.post(`/debts/${debt.id}/ready`).expect(200);
  return debt.id as string;
}

/** Everything a refund of `paymentId` on `debtId` may change: the payment, the debt, the tenant's events, balance items and provider refunds. */
async function ledger(debtId: string, paymentId: string) {
  const db = testDb();
  return {
    payment: await db('payments').where({ id: paymentId }).first(),
    debt: await db('debts').where({ id: debtId }).first('amount_paid', 'amount_remaining', 'status', 'updated_at'),
    events: await db('events').where({ tenant_id: me.tenant.tenantId }).orderBy('seq').pluck('id'),
    balanceItems: await db('balance_items').where({ payment_id: paymentId }).orderBy('id').select('*'),
    refunds: await refundsOf(paymentId),
  };
}

const refundsOf = (paymentId: string) => testDb()('payment_refunds').where({ payment_id: paymentId }).orderBy('created_at');
const refundRequests = (intent: unknown) => fake.requests.filter((r) => r.path === '/v1/refunds' && r.fields.payment_intent === intent);

describe('through the local provider (the suite API)', () => {
  test("a portal payment: the provider's refund stored in payment_refunds, the ledger moved, events recorded", async () => {
    const debtId = await readyDebt();
    const agent = await signedIn(portal.base, me.tenant.tenantId, parties.customerId, '1980-03-27');
    const path = await confirmPayment(agent, debtId, '40.00');
    await agent
      .post(path)
      .type('form')
      .send({ _csrf: await csrfOf(agent, path), card_number: '4242 4242 4242 4242' })
      .expect(303);
    const paid = await testDb()('payments').where({ debt_id: debtId }).first();
    expect(paid).toMatchObject({ status: 'succeeded', payment_provider: 'local', amount: 4000 });

    const res = await me.api.post(`/debts/${debtId}/payments/${paid.id}/refund`, { amount: 1500 }).expect(200);
    expect(res.body).toMatchObject({ status: 'partially_refunded', amount_refunded: 1500 });
    // The API's local provider (its secret derived from the API's SECRETS_KEY) answers the key with this reference.
    const api = localProvider(localCallbackSecret(SERVICE_ENV.SECRETS_KEY!));
    const expected = await api.refund({ reference: paid.transaction_ref, amount: 1500, idempotencyKey: providerRefundKey(paid, 1500) });
    const [row] = await refundsOf(paid.id);
    expect(row).toEqual({
      id: expect.stringMatching(/^rfd_[0-9A-Za-z]{24}$/),
      tenant_id: me.tenant.tenantId,
      payment_id: paid.id,
      debt_id: debtId,
      amount: 1500,
      currency: 'GBP',
      provider: 'local',
      provider_reference: expected.reference,
      status: 'succeeded',
      created_at: expect.any(Date),
    });
    expect(await testDb()('debts').where({ id: debtId }).first('amount_paid', 'amount_remaining')).toEqual({ amount_paid: 2500, amount_remaining: 7500 });
    expect(await eventTypesFor(me.tenant.tenantId, paid.id)).toEqual(['payment.created', 'payment.succeeded', 'payment.refunded']);
    expect((await eventTypesFor(me.tenant.tenantId, debtId)).at(-1)).toBe('debt.updated');

    // The rest: a second provider refund of its own.
    await me.api.post(`/debts/${debtId}/payments/${paid.id}/refund`).expect(200);
    expect((await refundsOf(paid.id)).map((r) => r.amount)).toEqual([1500, 2500]);
  });

  test.each([
    ['another name (free text)', { payment_provider: 'Acme Pay', transaction_ref: 'ACME-1' }],
    ['a provider the API is not configured with', { payment_provider: 'stripe', transaction_ref: 'pi_not_ours' }],
    ["its provider's name and a transaction_ref", { payment_provider: 'local', transaction_ref: 'lcs_recorded_by_the_tenant' }],
    ['its provider but no transaction_ref', { payment_provider: 'local' }],
  ])('a payment the tenant recorded with %s is refunded in the ledger only', async (_, recorded) => {
    const debtId = await readyDebt();
    const payment = (await me.api.post(`/debts/${debtId}/payments`, { amount: 3000, currency: 'GBP', ...recorded }).expect(201)).body;
    const res = await me.api.post(`/debts/${debtId}/payments/${payment.id}/refund`).expect(200);
    expect(res.body).toMatchObject({ status: 'refunded', amount_refunded: 3000 });
    expect(await testDb()('debts').where({ id: debtId }).first('amount_paid')).toEqual({ amount_paid: 0 });
    expect(await eventTypesFor(me.tenant.tenantId, payment.id)).toEqual(['payment.created', 'payment.refunded']);
    expect(await refundsOf(payment.id)).toEqual([]);
    expect(await testDb()('payments').where({ id: payment.id }).first('provider_managed')).toEqual({ provider_managed: false });
  });

  test('a tenant cannot set provider_managed: POST and PATCH are 400 naming the field, nothing changed', async () => {
    const debtId = await readyDebt();
    const recorded = { amount: 3000, currency: 'GBP', payment_provider: 'local', transaction_ref: 'lcs_claimed' };
    const created = await me.api.post(`/debts/${debtId}/payments`, { ...recorded, provider_managed: true }).expect(400);
    expect(created.body).toMatchObject({ object: 'error', param: 'provider_managed' });
    expect(await testDb()('payments').where({ debt_id: debtId })).toEqual([]);
    const payment = (await me.api.post(`/debts/${debtId}/payments`, { ...recorded, status: 'pending' }).expect(201)).body;
    expect(payment).not.toHaveProperty('provider_managed');
    for (const method of ['patch', 'put'] as const) {
      const res = await me.api[method](`/debts/${debtId}/payments/${payment.id}`, { provider_managed: true }).expect(400);
      expect(res.body).toMatchObject({ object: 'error', param: 'provider_managed' });
    }
    expect(await testDb()('payments').where({ id: payment.id }).first('provider_managed', 'status')).toEqual({ provider_managed: false, status: 'pending' });
  });
  test("a pending portal payment's terms come from the provider: PUT and PATCH of each are 422 naming it, nothing changed", async () => {
    const debtId = await readyDebt();
    const agent = await signedIn(portal.base, me.tenant.tenantId, parties.customerId, '1980-03-27');
    await confirmPayment(agent, debtId, '40.00');
    const pending = await testDb()('payments').where({ debt_id: debtId }).first();
    expect(pending).toMatchObject({ status: 'pending', provider_managed: true });
    const terms = { amount: 100, currency: 'GBP', transaction_at: '2026-01-01T00:00:00Z', transaction_ref: 'pi_chosen_by_the_tenant' };
    for (const [field, value] of Object.entries(terms))
      for (const method of ['patch', 'put'] as const) {
        const res = await me.api[method](`/debts/${debtId}/payments/${pending.id}`, { [field]: value }).expect(422);
        expect(res.body).toMatchObject({ object: 'error', code: 'business_rule_violation', param: field });
      }
    expect(await testDb()('payments').where({ id: pending.id }).first()).toEqual(pending);
    expect(await eventTypesFor(me.tenant.tenantId, pending.id)).toEqual(['payment.created']);
  });
});

describe('through the stripe provider (an API against the fake Stripe)', () => {
  /** A Checkout Session of `amount` on a new debt, paid on the fake Stripe; its reference and intent. */
  async function paidSession(amount: number) {
    const debtId = await readyDebt();
    const checkout = await stripeProvider({
      secretKey: 'sk_test_fake',
      webhookSecret: 'whsec_fake',
      returnBaseUrl: 'http://portal.test/',
      host: '127.0.0.1',
      port: fake.port,
      protocol: 'http',
    }).createCheckout({ tenantId: me.tenant.tenantId, debtId, amount, currency: 'GBP' });
    return { debtId, reference: checkout.reference, intent: fake.complete(checkout.reference).payment_intent };
  }

  /**
   * A succeeded payment of `amount` taken through the portal's Stripe checkout: created and settled
   * by the domain functions the portal's pay page and Stripe webhook call; with the session's intent.
   */
  async function stripePayment(amount = 5000) {
    const { debtId, reference, intent } = await paidSession(amount);
    const tenantId = me.tenant.tenantId;
    const start = { tenantId, customerId: parties.customerId, debtId, amount, currency: 'GBP', provider: 'stripe', reference };
    const { id } = await startPortalPayment(testDb(), start);
    await expect(recordProviderOutcome(testDb(), 'stripe', { eventId: `evt_${id}`, status: 'succeeded', tenantId, debtId, reference })).resolves.toBe(
      'recorded',
    );
    const payment = (await stripeApi.get(`/debts/${debtId}/payments/${id}`).expect(200)).body;
    expect(payment).toMatchObject({ status: 'succeeded', payment_provider: 'stripe', transaction_ref: reference });
    return { debtId, payment, intent };
  }

  test("a payment the tenant recorded as `stripe` with the paid session's reference is refunded in the ledger only: Stripe is not asked", async () => {
    const { debtId, reference, intent } = await paidSession(5000);
    const body = { amount: 5000, currency: 'GBP', payment_provider: 'stripe', transaction_ref: reference, metadata: { source: 'portal' } };
    const payment = (await stripeApi.post(`/debts/${debtId}/payments`, body).expect(201)).body;
    const seen = fake.requests.length;
    const res = await stripeApi.post(`/debts/${debtId}/payments/${payment.id}/refund`, { amount: 2000 }).expect(200);
    expect(res.body).toMatchObject({ status: 'partially_refunded', amount_refunded: 2000 });
    expect(fake.requests.slice(seen)).toEqual([]);
    expect(refundRequests(intent)).toEqual([]);
    expect(await refundsOf(payment.id)).toEqual([]);
    expect(await testDb()('debts').where({ id: debtId }).first('amount_paid')).toEqual({ amount_paid: 3000 });
    expect(await eventTypesFor(me.tenant.tenantId, payment.id)).toEqual(['payment.created', 'payment.refunded']);
  });

  afterEach(() => {
    fake.failRefunds = undefined;
  });

  test('a Refund of the intent for the amount; the same Idempotency-Key again is replayed, not refunded again', async () => {
    const { debtId, payment, intent } = await stripePayment();
    const refund = () => stripeApi.post(`/debts/${debtId}/payments/${payment.id}/refund`, { amount: 2000 }).set('Idempotency-Key', 'refund-stripe-1');
    const res = await refund().expect(200);
    expect(res.body).toMatchObject({ status: 'partially_refunded', amount_refunded: 2000 });
    const sent = refundRequests(intent);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ fields: { payment_intent: intent, amount: '2000' }, idempotencyKey: expect.stringMatching(`^refund_${payment.id}_k`) });
    const [row] = await refundsOf(payment.id);
    expect(row).toMatchObject({ provider: 'stripe', provider_reference: expect.stringMatching(/^re_/), amount: 2000, currency: 'GBP', status: 'succeeded' });
    expect(await eventTypesFor(me.tenant.tenantId, payment.id)).toEqual(['payment.created', 'payment.succeeded', 'payment.refunded']);

    const again = await refund().expect(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(refundRequests(intent)).toHaveLength(1);
    expect(await refundsOf(payment.id)).toHaveLength(1);
    expect(await testDb()('debts').where({ id: debtId }).first('amount_paid')).toEqual({ amount_paid: 3000 });
  });

  test.each<[string, RefundFailure, number, string]>([
    ['refuses (400)', 'refuse', 402, 'payment_provider_refused'],
    ['reports the refund failed', 'fail', 402, 'payment_provider_refused'],
    ['answers a server error (500)', 'server_error', 502, 'payment_provider_unavailable'],
    ['cannot be reached (the connection dropped)', 'hang_up', 502, 'payment_provider_unavailable'],
  ])('the provider %s (%s): %d %s, nothing changed', async (_, failure, status, code) => {
    const { debtId, payment, intent } = await stripePayment();
    const before = await ledger(debtId, payment.id);
    fake.failRefunds = failure;
    const res = await stripeApi.post(`/debts/${debtId}/payments/${payment.id}/refund`, { amount: 1000 }).expect(status);
    expect(res.body).toMatchObject({ object: 'error', code });
    expect(res.body.message).toContain(payment.id);
    expect(refundRequests(intent).length).toBeGreaterThan(0);
    expect(await ledger(debtId, payment.id)).toEqual(before);
  });

  test.each([
    ['with the same Idempotency-Key', { 'Idempotency-Key': 'refund-stripe-retry' }],
    ['without an Idempotency-Key (the same amount, nothing recorded between)', {}],
  ])('a retry after 502, %s, sends the provider the same idempotency key: one refund', async (_, headers) => {
    const { debtId, payment, intent } = await stripePayment();
    const refund = () => stripeApi.post(`/debts/${debtId}/payments/${payment.id}/refund`, { amount: 1200 }).set(headers);
    fake.failRefunds = 'server_error';
    await refund().expect(502);
    fake.failRefunds = undefined;
    await refund().expect(200);
    const keys = new Set(refundRequests(intent).map((r) => r.idempotencyKey));
    expect(keys.size).toBe(1);
    expect(await refundsOf(payment.id)).toHaveLength(1);
    expect(await testDb()('payments').where({ id: payment.id }).first('amount_refunded')).toEqual({ amount_refunded: 1200 });
  });

  test('a second refund of the same amount without an Idempotency-Key, after the first was recorded, is a refund of its own', async () => {
    const { debtId, payment, intent } = await stripePayment();
    for (let i = 0; i < 2; i++) await stripeApi.post(`/debts/${debtId}/payments/${payment.id}/refund`, { amount: 1000 }).expect(200);
    expect(new Set(refundRequests(intent).map((r) => r.idempotencyKey)).size).toBe(2);
    expect((await refundsOf(payment.id)).map((r) => r.amount)).toEqual([1000, 1000]);
  });
});
