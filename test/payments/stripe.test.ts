/**
 * The `stripe` payment provider (docs/api.md section 18 "Payments", providers) on the official
 * package pointed at a local fake of the Stripe API (no network), with the real portal and
 * PostgreSQL: the Checkout Session's fields, the customer sent to its url, Stripe-signed webhooks at
 * `POST /callbacks/payments/stripe` (recorded once, forged ones refused), saved methods, off-session
 * charges and refunds.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import Stripe from 'stripe';
import { stripeProvider, type PaymentProvider } from '@dms/payments';
import { closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { createDebt, eventTypesFor } from '../support/debts.js';
import { startFakeStripe, type FakeStripe } from '../support/fake-stripe.js';
import { confirmPayment, signedIn, startPortal, type RunningPortal } from '../portal/steps-support.js';

const WEBHOOK_SECRET = 'whsec_test_secret';
const stripe = new Stripe('sk_test_unused');
let fake: FakeStripe;
let provider: PaymentProvider;
let portal: RunningPortal;
let base: string;
let me: Awaited<ReturnType<typeof signedInTenant>>;
let parties: { organisationId: string; customerId: string };

beforeAll(async () => {
  fake = await startFakeStripe();
  provider = stripeProvider({
    secretKey: 'sk_test_fake',
    webhookSecret: WEBHOOK_SECRET,
    returnBaseUrl: 'http://portal.test/',
    host: '127.0.0.1',
    port: fake.port,
    protocol: 'http',
  });
  me = await signedInTenant();
  parties = await seedParties(me.api);
  await me.api.patch(`/customers/${parties.customerId}`, { date_of_birth: '1980-03-27' }).expect(200);
  portal = await startPortal({ payments: provider });
  base = portal.base;
});

afterAll(async () => {
  await portal.stop();
  await fake.close();
  await closeHarness();
});

/** A debt of 100.00 GBP that accepts payments. */
async function readyDebt(): Promise<string> {
  const debt = await createDebt(me.api, parties);
  await me.api.post(`/debts/${debt.id}/ready`).expect(200);
  return debt.id as string;
}

/** A Stripe event of `type` about `object`, its raw body and a `Stripe-Signature` made by the package under `secret`. */
function signedEvent(type: string, object: Record<string, unknown>, secret = WEBHOOK_SECRET, eventId = `evt_${Math.random().toString(36).slice(2)}`) {
  const payload = JSON.stringify({ id: eventId, object: 'event', type, data: { object } });
  return { payload, header: stripe.webhooks.generateTestHeaderString({ payload, secret }), eventId };
}

const deliver = (e: { payload: string; header: string }) =>
  request(base).post('/callbacks/payments/stripe').set('Content-Type', 'application/json').set('Stripe-Signature', e.header).send(e.payload);

const paymentsOf = (debtId: string) => testDb()('payments').where({ debt_id: debtId }).orderBy('seq');
const lastRequest = (path: string) => fake.requests.filter((r) => r.path === path).at(-1)!;

/** Pays `amount` of a new debt through the portal up to Stripe's hosted page; the session id and the signed-in agent. */
async function openCheckout(amount: string) {
  const debtId = await readyDebt();
  const agent = await signedIn(base, me.tenant.tenantId, parties.customerId, '1980-03-27');
  const location = await confirmPayment(agent, debtId, amount);
  const session = [...fake.sessions.values()].at(-1)!;
  return { debtId, agent, location, sessionId: session.id as string, session };
}

describe('checkout and webhooks through the portal', () => {
  test("the check page sends the customer to the Checkout Session's url; the session has the amount, metadata and return urls", async () => {
    const { debtId, location, sessionId } = await openCheckout('25.50');
    expect(location).toBe(fake.sessions.get(sessionId)!.url);
    expect(location).toMatch(/^https:\/\/checkout\.stripe\.com\//);
    const sent = lastRequest('/v1/checkout/sessions');
    expect(sent.authorization).toBe('Bearer sk_test_fake');
    expect(sent.fields).toMatchObject({
      mode: 'payment',
      'line_items[0][price_data][unit_amount]': '2550',
      'line_items[0][price_data][currency]': 'gbp',
      'metadata[tenant]': me.tenant.tenantId,
      'metadata[debt]': debtId,
      'payment_intent_data[metadata][debt]': debtId,
      success_url: 'http://portal.test/checkout/stripe/{CHECKOUT_SESSION_ID}',
    });
    expect(sent.fields['payment_intent_data[setup_future_usage]']).toBeUndefined();
    const [pending] = await paymentsOf(debtId);
    expect(pending).toMatchObject({ status: 'pending', amount: 2550, payment_provider: 'stripe', transaction_ref: sessionId });
  });

  test('a signed checkout.session.completed succeeds the payment and moves the balance; the same event again changes nothing', async () => {
    const { debtId, agent, sessionId } = await openCheckout('40');
    expect((await agent.get(`/checkout/stripe/${sessionId}`).expect(200)).text).toContain('being processed');
    const event = signedEvent('checkout.session.completed', fake.complete(sessionId));
    expect((await deliver(event).expect(200)).body).toEqual({ result: 'recorded' });
    const [payment] = await paymentsOf(debtId);
    expect(payment).toMatchObject({ status: 'succeeded', metadata: { source: 'portal', provider_event: event.eventId } });
    expect(await testDb()('debts').where({ id: debtId }).first()).toMatchObject({ amount_remaining: 6000 });
    expect((await agent.get(`/checkout/stripe/${sessionId}`).expect(200)).text).toContain('Payment received');
    expect((await deliver(event).expect(200)).body).toEqual({ result: 'duplicate' });
    expect(await eventTypesFor(me.tenant.tenantId, payment.id)).toEqual(['payment.created', 'payment.succeeded']);
    expect(await testDb()('debts').where({ id: debtId }).first()).toMatchObject({ amount_remaining: 6000 });
  });

  test('a wrong signature, another secret or a tampered body is 400 and changes nothing', async () => {
    const { debtId, sessionId } = await openCheckout('10');
    const object = fake.complete(sessionId);
    const forged = signedEvent('checkout.session.completed', object, 'whsec_another');
    const good = signedEvent('checkout.session.completed', object);
    for (const e of [forged, { payload: good.payload.replace('"paid"', '"unpaid"'), header: good.header }, { payload: good.payload, header: 't=1,v1=00' }])
      expect((await deliver(e).expect(400)).body).toEqual({ result: 'rejected' });
    expect((await paymentsOf(debtId))[0].status).toBe('pending');
    expect(await testDb()('debts').where({ id: debtId }).first()).toMatchObject({ amount_remaining: 10000 });
  });

  test('async_payment_failed fails the payment; an unpaid completion and a checkout intent event are answered 200 and ignored', async () => {
    const { debtId, session } = await openCheckout('15');
    expect((await deliver(signedEvent('checkout.session.completed', session)).expect(200)).body).toEqual({ result: 'ignored' });
    const intent = { id: 'pi_checkout', object: 'payment_intent', status: 'succeeded', metadata: { tenant: me.tenant.tenantId, debt: debtId } };
    expect((await deliver(signedEvent('payment_intent.succeeded', intent)).expect(200)).body).toEqual({ result: 'ignored' });
    expect((await paymentsOf(debtId))[0].status).toBe('pending');
    await deliver(signedEvent('checkout.session.async_payment_failed', session)).expect(200);
    expect((await paymentsOf(debtId))[0].status).toBe('failed');
    expect(await testDb()('debts').where({ id: debtId }).first()).toMatchObject({ amount_remaining: 10000 });
  });
});

describe('saved methods, off-session charges, refunds', () => {
  test('a checkout saving the method asks for off_session use and a customer; its completion carries the saved method', async () => {
    const checkout = await provider.createCheckout({ tenantId: 'ten_x', debtId: 'deb_x', amount: 1200, currency: 'GBP', saveMethod: true });
    expect(lastRequest('/v1/checkout/sessions').fields).toMatchObject({
      'payment_intent_data[setup_future_usage]': 'off_session',
      customer_creation: 'always',
      'metadata[save_method]': 'true',
    });
    const session = fake.complete(checkout.reference, '0341');
    const e = signedEvent('checkout.session.completed', session);
    const outcome = await provider.verifyCallback(e.payload, e.header);
    expect(lastRequest(`/v1/checkout/sessions/${checkout.reference}`).fields).toEqual({ 'expand[0]': 'payment_intent.payment_method' });
    expect(outcome).toEqual({
      eventId: e.eventId,
      status: 'succeeded',
      tenantId: 'ten_x',
      debtId: 'deb_x',
      reference: checkout.reference,
      savedMethod: { reference: expect.stringMatching(/^cus_\w+:pm_\w+$/), label: 'card ending 0341' },
    });
  });

  test('a setup-only checkout (plans, pay later) is a setup-mode session for a customer made first: nothing charged, the card saved', async () => {
    const checkout = await provider.createCheckout({ tenantId: 'ten_x', debtId: 'deb_x', amount: 0, currency: 'GBP', setupOnly: true });
    expect(lastRequest('/v1/customers').fields).toMatchObject({ 'metadata[tenant]': 'ten_x', 'metadata[debt]': 'deb_x' });
    const created = lastRequest('/v1/checkout/sessions').fields;
    expect(created).toMatchObject({ mode: 'setup', currency: 'gbp', customer: expect.stringMatching(/^cus_/), 'metadata[save_method]': 'true' });
    expect(Object.keys(created).some((k) => k.startsWith('line_items') || k.startsWith('payment_intent_data'))).toBe(false);
    const session = fake.complete(checkout.reference, '4242');
    const e = signedEvent('checkout.session.completed', session);
    const outcome = await provider.verifyCallback(e.payload, e.header);
    expect(lastRequest(`/v1/checkout/sessions/${checkout.reference}`).fields).toEqual({ 'expand[0]': 'setup_intent.payment_method' });
    expect(outcome).toMatchObject({
      status: 'succeeded',
      reference: checkout.reference,
      savedMethod: { reference: expect.stringMatching(new RegExp(`^${created.customer}:pm_\\w+$`)), label: 'card ending 4242' },
    });
  });

  test('chargeSaved: an off-session confirmed intent with the idempotency key; succeeded, declined → failed, the same key twice is one charge', async () => {
    const charge = { tenantId: 'ten_x', debtId: 'deb_x', amount: 3000, currency: 'GBP', method: 'cus_abc:pm_card_visa', idempotencyKey: 'instalment-1' };
    const paid = await provider.chargeSaved(charge);
    expect(paid).toEqual({ reference: expect.stringMatching(/^pi_/), status: 'succeeded' });
    const sent = lastRequest('/v1/payment_intents');
    expect(sent.idempotencyKey).toBe('instalment-1');
    expect(sent.fields).toMatchObject({
      amount: '3000',
      currency: 'gbp',
      customer: 'cus_abc',
      payment_method: 'pm_card_visa',
      off_session: 'true',
      confirm: 'true',
      'metadata[origin]': 'charge',
    });
    expect(await provider.chargeSaved(charge)).toEqual(paid);
    const declined = await provider.chargeSaved({ ...charge, method: 'cus_abc:pm_card_chargeDeclined', idempotencyKey: 'instalment-2' });
    expect(declined).toEqual({ reference: expect.stringMatching(/^pi_/), status: 'failed' });
    await expect(provider.chargeSaved({ ...charge, method: 'lpm_s4242_x' })).rejects.toThrow(/not a saved method/);
    // The charge's own webhook reports it by the intent's reference.
    const e = signedEvent('payment_intent.payment_failed', {
      id: declined.reference,
      object: 'payment_intent',
      metadata: { tenant: 'ten_x', debt: 'deb_x', origin: 'charge' },
    });
    await expect(provider.verifyCallback(e.payload, e.header)).resolves.toMatchObject({ status: 'failed', reference: declined.reference });
  });

  test("refund: a Refund of the checkout's intent for the amount, with the idempotency key", async () => {
    const checkout = await provider.createCheckout({ tenantId: 'ten_x', debtId: 'deb_x', amount: 5000, currency: 'GBP' });
    const session = fake.complete(checkout.reference);
    const refund = await provider.refund({ reference: checkout.reference, amount: 2000, idempotencyKey: 'refund-1' });
    expect(refund).toEqual({ reference: expect.stringMatching(/^re_/), status: 'succeeded' });
    const sent = lastRequest('/v1/refunds');
    expect(sent).toMatchObject({ idempotencyKey: 'refund-1', fields: { payment_intent: session.payment_intent, amount: '2000' } });
  });
});
