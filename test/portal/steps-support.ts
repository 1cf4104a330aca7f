/**
 * Helpers of the portal's tests (services/portal/src/steps.ts and the routes on it): a portal on a
 * free port over the test database, a verified agent (cookie jar) of a customer, the CSRF token of
 * a page, a journey walked answer by answer to its check page, and a payment confirmed to its
 * provider's checkout. The one place portal tests start the application and sign in.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from '@jest/globals';
import request from 'supertest';
import { buildPortal, type PortalDeps } from '@dms/portal/app';
import { createLogger } from '@dms/logger';
import { createPortalLink } from '@dms/domain/portal';
import { testDb } from '../support/harness.js';

export type Agent = ReturnType<typeof request.agent>;

/** A portal listening on a local port: its `base` URL, and `stop` to close the server and the application. */
export interface RunningPortal {
  base: string;
  stop: () => Promise<void>;
}

/**
 * A portal on a free local port over the test database, silent, with `options` over the defaults
 * (e.g. `payments` for a provider, `rateLimits`).
 */
export async function startPortal(options: Partial<Omit<PortalDeps, 'db' | 'databaseUrl'>> = {}): Promise<RunningPortal> {
  const portal = buildPortal({
    db: testDb(),
    log: createLogger('portal', 'silent'),
    databaseUrl: process.env.TEST_DATABASE_URL!,
    baseUrl: 'http://localhost',
    sessionSecret: 'steps-secret',
    ...options,
  });
  const server: Server = createServer(portal);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    stop: async () => {
      await new Promise((ok) => server.close(ok));
      await portal.close();
    },
  };
}

/** The `_csrf` value of the form on `path` (which must answer 200). */
export async function csrfOf(agent: Agent, path: string): Promise<string> {
  const res = await agent.get(path).expect(200);
  return /name="_csrf" value="([^"]+)"/.exec(res.text)![1]!;
}

/**
 * Verifies `agent` (with whatever its session already holds) as `customerId` (whose date of birth
 * is `answer`) of `tenantId` through a new link (bound to `debtId` when given); returns where
 * verification sends it (the 303's `Location`).
 */
export async function verifyThroughLink(agent: Agent, tenantId: string, customerId: string, answer: string, debtId?: string): Promise<string> {
  const { token } = await createPortalLink(testDb(), { tenantId, customerId, debtId, ttlDays: 30 });
  await agent.get(`/l/${token}`).expect(303);
  const res = await agent
    .post('/verify')
    .type('form')
    .send({ _csrf: await csrfOf(agent, '/verify'), answer })
    .expect(303);
  return res.headers.location as string;
}

/** An agent verified as `customerId` (whose date of birth is `answer`) of `tenantId`. */
export async function signedIn(base: string, tenantId: string, customerId: string, answer: string): Promise<Agent> {
  const agent = request.agent(base);
  await verifyThroughLink(agent, tenantId, customerId, answer);
  return agent;
}

/** A form body: repeated names for lists (`channels=email&channels=sms`). */
export function formOf(fields: Record<string, string | string[]>): string {
  const body = new URLSearchParams();
  for (const [name, v] of Object.entries(fields)) for (const one of ([] as string[]).concat(v)) body.append(name, one);
  return body.toString();
}

/**
 * Answers each page of a journey from `path` in turn (each a form object posted to the page it
 * redirects to next) and checks it ends on `<path>/check`; returns the check page's text.
 */
export async function walk(agent: Agent, path: string, answers: Array<Record<string, string | string[]>>): Promise<string> {
  let page = path;
  for (const answer of answers) {
    const csrf = await csrfOf(agent, page);
    const res = await agent
      .post(page)
      .type('form')
      .send(formOf({ _csrf: csrf, ...answer }))
      .expect(303);
    page = res.headers.location as string;
  }
  expect(page).toBe(`${path}/check`);
  return (await agent.get(page).expect(200)).text;
}

/** Confirms the check page of `path`; checks it lands on `<path>/done` and returns the done page's text. */
export async function confirm(agent: Agent, path: string): Promise<string> {
  const csrf = await csrfOf(agent, `${path}/check`);
  const res = await agent.post(`${path}/check`).type('form').send({ _csrf: csrf }).expect(303);
  expect(res.headers.location).toBe(`${path}/done`);
  return (await agent.get(`${path}/done`).expect(200)).text;
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
