/**
 * Portal payment journeys for tests (docs/api.md section 18 "Payments"): a customer's agent signed
 * in through a portal link, the CSRF token of a page, and the amount → check-your-answers steps that
 * open the provider's checkout.
 */
import { expect } from '@jest/globals';
import request from 'supertest';
import { createPortalLink } from '@dms/domain/portal';
import { testDb } from './harness.js';

/** A supertest agent keeping the portal session's cookies. */
export type Agent = ReturnType<typeof request.agent>;

/** An agent of the portal at `base` signed in as `customerId` of `tenantId`, verified by date of birth `answer`. */
export async function signInCustomer(base: string, tenantId: string, customerId: string, answer: string): Promise<Agent> {
  const { token } = await createPortalLink(testDb(), { tenantId, customerId, ttlDays: 30 });
  const agent = request.agent(base);
  await agent.get(`/l/${token}`).expect(303);
  await agent
    .post('/verify')
    .type('form')
    .send({ _csrf: await csrfOf(agent, '/verify'), answer })
    .expect(303);
  return agent;
}

/** The CSRF token of the form at `path`. */
export async function csrfOf(agent: Agent, path: string): Promise<string> {
  const res = await agent.get(path).expect(200);
  return /name="_csrf" value="([^"]+)"/.exec(res.text)![1]!;
}

/** Chooses `amount` (major units) on the pay page of `debtId` and confirms it; returns where the portal sends the customer (the checkout's URL). */
export async function confirmPayment(agent: Agent, debtId: string, amount: string): Promise<string> {
  const csrf = await csrfOf(agent, `/debts/${debtId}/pay`);
  const chosen = await agent.post(`/debts/${debtId}/pay`).type('form').send({ _csrf: csrf, amount }).expect(303);
  expect(chosen.headers.location).toBe(`/debts/${debtId}/pay/check`);
  const check = await agent.get(chosen.headers.location as string).expect(200);
  expect(check.text).toContain('Check your payment');
  const sent = await agent.post(`/debts/${debtId}/pay/check`).type('form').send({ _csrf: csrf }).expect(303);
  return sent.headers.location as string;
}
