/**
 * Paying from the portal through the `local` provider (docs/api.md section
 * 18 "Payments"), over HTTP against the real application and PostgreSQL: amount → check your
 * answers → hosted test checkout → signed callback; declined and authentication cards; bad
 * amounts; forged and replayed callbacks; another customer's debt.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import { localCallbackSecret, localProvider, signatureHeader } from '@dms/payments';
import { closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { confirmPayment, csrfOf, signedIn, type Agent, startPortal, type RunningPortal } from './steps-support.js';
import { createDebt, eventTypesFor } from '../support/debts.js';

const provider = localProvider(localCallbackSecret('test-secrets-key'));
let portal: RunningPortal;
let base: string;
let me: Awaited<ReturnType<typeof signedInTenant>>;
let parties: { organisationId: string; customerId: string };
let otherDebtId: string;
let otherCustomerId: string;

beforeAll(async () => {
  me = await signedInTenant();
  parties = await seedParties(me.api);
  await me.api.patch(`/customers/${parties.customerId}`, { date_of_birth: '1980-03-27' }).expect(200);
  await me.api.patch(`/organisations/${parties.organisationId}`, { payment_options_configuration: { min_payment_amount: 500 } }).expect(200);
  const second = await me.api.post('/customers', { kind: 'individual', first_name: 'Bob', last_name: 'Other', date_of_birth: '1970-01-01' }).expect(201);
  otherCustomerId = second.body.id as string;
  otherDebtId = await readyDebt(otherCustomerId);
  portal = await startPortal({ payments: provider });
  base = portal.base;
});

afterAll(async () => {
  await portal.stop();
  await closeHarness();
});

/** A debt of 100.00 GBP of `customerId` that accepts payments. */
async function readyDebt(customerId = parties.customerId): Promise<string> {
  const debt = await createDebt(me.api, { ...parties, customerId });
  await me.api.post(`/debts/${debt.id}/ready`).expect(200);
  return debt.id as string;
}

/** A verified agent of the customer (or of another, with their date of birth). */
const signIn = (customerId = parties.customerId, answer = '1980-03-27') => signedIn(base, me.tenant.tenantId, customerId, answer);

/** Chooses `amount` on the pay page and confirms it; returns the checkout's path. */
async function checkout(agent: Agent, debtId: string, amount: string): Promise<string> {
  const location = await confirmPayment(agent, debtId, amount);
  expect(location).toMatch(/^\/checkout\/local\/lcs_/);
  return location;
}

async function payWithCard(agent: Agent, path: string, card: string, status: number) {
  const csrf = await csrfOf(agent, path);
  return agent.post(path).type('form').send({ _csrf: csrf, card_number: card }).expect(status);
}

const paymentsOf = (debtId: string) => testDb()('payments').where({ debt_id: debtId }).orderBy('seq');
const debtRow = (debtId: string) => testDb()('debts').where({ id: debtId }).first();

describe('paying', () => {
  test('pay in full with 4242…: pending, then succeeded from the signed callback; the debt paid; events recorded', async () => {
    const debtId = await readyDebt();
    const agent = await signIn();
    expect((await agent.get(`/debts/${debtId}`).expect(200)).text).toContain(`/debts/${debtId}/pay`);
    const path = await checkout(agent, debtId, '100.00');
    const [pending] = await paymentsOf(debtId);
    expect(pending).toMatchObject({
      status: 'pending',
      amount: 10000,
      payment_provider: 'local',
      transaction_ref: path.split('/').pop(),
      provider_managed: true,
    });
    expect(pending.metadata).toEqual({ source: 'portal' });
    const paid = await payWithCard(agent, path, '4242 4242 4242 4242', 303);
    expect(paid.headers.location).toBe(path);
    expect((await agent.get(path).expect(200)).text).toContain('Payment received');
    const [payment] = await paymentsOf(debtId);
    expect(payment.status).toBe('succeeded');
    expect(await debtRow(debtId)).toMatchObject({ status: 'paid', amount_remaining: 0, status_whodunnit: `customer:${parties.customerId}` });
    expect(await eventTypesFor(me.tenant.tenantId, payment.id)).toEqual(['payment.created', 'payment.succeeded']);
    expect(await eventTypesFor(me.tenant.tenantId, debtId)).toContain('debt.paid');
    // The tenant's API shows it.
    const api = await me.api.get(`/debts/${debtId}/payments/${payment.id}`).expect(200);
    expect(api.body).toMatchObject({ status: 'succeeded', payment_provider: 'local' });
    // Nothing is left to pay: the pay page says so, with no form, and a posted amount changes nothing.
    const page = await agent.get(`/debts/${debtId}/pay`).expect(200);
    expect(page.text).toContain('There is nothing to pay on this account');
    expect(page.text).not.toContain('name="amount"');
    const csrf = await csrfOf(agent, `/debts/${debtId}`);
    await agent.post(`/debts/${debtId}/pay`).type('form').send({ _csrf: csrf, amount: '1.00' }).expect(409);
    expect(await paymentsOf(debtId)).toHaveLength(1);
  });

  test('a part payment lowers the balance', async () => {
    const debtId = await readyDebt();
    const agent = await signIn();
    await payWithCard(agent, await checkout(agent, debtId, '25.50'), '4242424242424242', 303);
    expect(await debtRow(debtId)).toMatchObject({ amount_remaining: 7450 });
    expect((await debtRow(debtId)).status).not.toBe('paid');
  });

  test('a declined card fails the payment; the balance is unchanged', async () => {
    const debtId = await readyDebt();
    const agent = await signIn();
    const path = await checkout(agent, debtId, '40');
    await payWithCard(agent, path, '4000 0000 0000 0002', 303);
    expect((await agent.get(path).expect(200)).text).toContain('did not go through');
    expect((await paymentsOf(debtId))[0].status).toBe('failed');
    expect((await debtRow(debtId)).amount_remaining).toBe(10000);
  });

  test('a card that needs authentication shows a confirm step; confirming succeeds', async () => {
    const debtId = await readyDebt();
    const agent = await signIn();
    const path = await checkout(agent, debtId, '10');
    const step = await payWithCard(agent, path, '4000 0025 0000 3155', 200);
    expect(step.text).toContain('Confirm this payment');
    expect((await paymentsOf(debtId))[0].status).toBe('pending');
    await agent
      .post(`${path}/confirm`)
      .type('form')
      .send({ _csrf: await csrfOf(agent, path), decision: 'complete' })
      .expect(303);
    expect((await paymentsOf(debtId))[0].status).toBe('succeeded');
    expect((await debtRow(debtId)).amount_remaining).toBe(9000);
  });

  test('in French the pages come from the fr-FR catalogue', async () => {
    const debtId = await readyDebt();
    const agent = await signIn();
    const res = await agent.get(`/debts/${debtId}/pay?lang=fr-FR`).expect(200);
    expect(res.text).toContain('Combien souhaitez-vous payer');
  });
});

describe('bad input and abuse', () => {
  test('an amount above the balance, below the minimum or not a number is 400 naming the field; nothing stored', async () => {
    const debtId = await readyDebt();
    const agent = await signIn();
    const csrf = await csrfOf(agent, `/debts/${debtId}/pay`);
    for (const [amount, text] of [
      ['100.01', 'more than your balance'],
      ['4.99', 'below the smallest payment'],
      ['abc', 'Enter the amount'],
      ['1.234', 'Enter the amount'],
    ]) {
      const res = await agent.post(`/debts/${debtId}/pay`).type('form').send({ _csrf: csrf, amount }).expect(400);
      expect(res.text).toContain('href="#amount"');
      expect(res.text).toContain(text);
    }
    await agent.get(`/debts/${debtId}/pay/check`).expect(303);
    expect(await paymentsOf(debtId)).toHaveLength(0);
  });

  test('a callback with a wrong signature, an old timestamp or a tampered body is 400 and changes nothing', async () => {
    const debtId = await readyDebt();
    const agent = await signIn();
    const path = await checkout(agent, debtId, '20');
    const reference = path.split('/').pop()!;
    const outcome = { status: 'succeeded' as const, tenantId: me.tenant.tenantId, debtId, reference };
    const good = provider.signedOutcome(outcome);
    const forged = localProvider('another-secret').signedOutcome(outcome);
    const old = provider.signedOutcome(outcome, new Date(Date.now() - 3600_000));
    const tampered = { body: good.body.replace('succeeded', 'failed'), signature: good.signature };
    for (const c of [forged, old, tampered, { body: good.body, signature: '' }]) {
      await request(base)
        .post('/callbacks/payments/local')
        .set('Content-Type', 'application/json')
        .set('Local-Signature', c.signature)
        .send(c.body)
        .expect(400);
    }
    expect((await paymentsOf(debtId))[0].status).toBe('pending');
    // A correctly signed callback for an unknown checkout is 404.
    const unknown = provider.signedOutcome({ ...outcome, reference: 'lcs_unknown' });
    await request(base)
      .post('/callbacks/payments/local')
      .set('Content-Type', 'application/json')
      .set('Local-Signature', unknown.signature)
      .send(unknown.body)
      .expect(404);
  });

  test("a pending payment the tenant recorded with the provider's name and a reference is not the provider's: its signed callback is 404, its checkout page 404", async () => {
    const debtId = await readyDebt();
    const reference = `lcs_tenant_${debtId}`;
    const recorded = { amount: 2000, currency: 'GBP', status: 'pending', payment_provider: 'local', transaction_ref: reference };
    const payment = (await me.api.post(`/debts/${debtId}/payments`, recorded).expect(201)).body;
    const signed = provider.signedOutcome({ status: 'succeeded', tenantId: me.tenant.tenantId, debtId, reference });
    await request(base)
      .post('/callbacks/payments/local')
      .set('Content-Type', 'application/json')
      .set('Local-Signature', signed.signature)
      .send(signed.body)
      .expect(404);
    const agent = await signIn();
    await agent.get(`/checkout/local/${reference}`).expect(404);
    const csrf = await csrfOf(agent, '/debts');
    await agent.post(`/checkout/local/${reference}`).type('form').send({ _csrf: csrf, card_number: '4242424242424242' }).expect(404);
    expect(await paymentsOf(debtId)).toEqual([expect.objectContaining({ id: payment.id, status: 'pending', provider_managed: false })]);
    expect(await eventTypesFor(me.tenant.tenantId, payment.id)).toEqual(['payment.created']);
  });

  test('a replayed callback changes nothing the second time', async () => {
    const debtId = await readyDebt();
    const agent = await signIn();
    const reference = (await checkout(agent, debtId, '30')).split('/').pop()!;
    const signed = provider.signedOutcome({ status: 'succeeded', tenantId: me.tenant.tenantId, debtId, reference });
    const send = () =>
      request(base).post('/callbacks/payments/local').set('Content-Type', 'application/json').set('Local-Signature', signed.signature).send(signed.body);
    expect((await send().expect(200)).body).toEqual({ result: 'recorded' });
    expect((await send().expect(200)).body).toEqual({ result: 'duplicate' });
    // A fresh signature over the same event id is still the same event.
    const again = signatureHeader(localCallbackSecret('test-secrets-key'), signed.body, Math.floor(Date.now() / 1000));
    await request(base).post('/callbacks/payments/local').set('Content-Type', 'application/json').set('Local-Signature', again).send(signed.body).expect(200);
    const [payment] = await paymentsOf(debtId);
    expect(payment.status).toBe('succeeded');
    expect((await debtRow(debtId)).amount_remaining).toBe(7000);
    expect(await eventTypesFor(me.tenant.tenantId, payment.id)).toEqual(['payment.created', 'payment.succeeded']);
  });

  test("another customer's debt id is 404 on every pay page, nothing shown; a checkout needs the session (401, 403 without CSRF)", async () => {
    const agent = await signIn();
    const csrf = await csrfOf(agent, '/debts');
    for (const res of [
      await agent.get(`/debts/${otherDebtId}/pay`),
      await agent.post(`/debts/${otherDebtId}/pay`).type('form').send({ _csrf: csrf, amount: '10' }),
      await agent.get(`/debts/${otherDebtId}/pay/check`),
      await agent.post(`/debts/${otherDebtId}/pay/check`).type('form').send({ _csrf: csrf }),
    ]) {
      expect(res.status).toBe(404);
      expect(res.text).not.toContain(otherDebtId);
    }
    expect(await paymentsOf(otherDebtId)).toHaveLength(0);
    const mine = await readyDebt();
    const path = await checkout(agent, mine, '10');
    await request(base).get(path).expect(401);
    await request(base).post(path).type('form').send({ card_number: '4242424242424242' }).expect(403);
    // The other customer, verified, cannot open or pay this customer's checkout.
    const stranger = await signIn(otherCustomerId, '1970-01-01');
    expect((await stranger.get(path).expect(404)).text).not.toContain('10.00');
    const csrfOther = await csrfOf(stranger, '/debts');
    await stranger.post(path).type('form').send({ _csrf: csrfOther, card_number: '4242424242424242' }).expect(404);
    expect((await paymentsOf(mine))[0].status).toBe('pending');
  });
});
