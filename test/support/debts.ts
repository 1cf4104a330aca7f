/**
 * Debt fixtures for the resource tests: create a debt, drive it to any lifecycle status through
 * the public API, and read the events the outbox recorded.
 */
import { expect } from '@jest/globals';
import { apiAs, seedParties, testDb } from './harness.js';

type Api = ReturnType<typeof apiAs>;
export type Parties = Awaited<ReturnType<typeof seedParties>>;

/** Every status of docs/api.md section 6. */
export const STATUSES = ['initializing', 'prepared', 'paused', 'resumed', 'disputed', 'settled', 'paid', 'withdrawn', 'deleted'] as const;
export type Status = (typeof STATUSES)[number];

/**
 * `GET <path>`'s body (which must answer 200) as every other single-object response shows it:
 * without `portal_url`, which only the retrieve of a debt carries (docs/api.md section 5).
 */
export async function retrieved(api: Api, path: string): Promise<Record<string, unknown>> {
  const { portal_url: _portalUrl, ...body } = (await api.get(path).expect(200)).body as Record<string, unknown>;
  return body;
}

/** Creates a debt (GBP, principal 10000 unless overridden) and returns its body. */
export async function createDebt(api: Api, parties: Parties, body: Record<string, unknown> = {}) {
  const res = await api
    .post('/debts', { customer_id: parties.customerId, organisation_id: parties.organisationId, currency: 'GBP', breakdown: { principal: 10000 }, ...body })
    .expect(201);
  return res.body;
}

/** The public moves that reach each status from `initializing` (paid and deleted are special). */
const ROUTE: Record<Exclude<Status, 'paid' | 'deleted'>, string[]> = {
  initializing: [],
  prepared: ['ready'],
  paused: ['ready', 'pause'],
  resumed: ['ready', 'pause', 'resume'],
  disputed: ['ready', 'dispute'],
  settled: ['ready', 'settle'],
  withdrawn: ['withdraw'],
};

/** Creates a debt and drives it to `status`; returns its id. */
export async function debtIn(api: Api, parties: Parties, status: Status): Promise<string> {
  const debt = await createDebt(api, parties);
  if (status === 'deleted') {
    await api.delete(`/debts/${debt.id}`).expect(200);
  } else if (status === 'paid') {
    await api.post(`/debts/${debt.id}/ready`).expect(200);
    await api.post(`/debts/${debt.id}/payments`, { amount: 10000, currency: 'GBP' }).expect(201);
  } else {
    for (const action of ROUTE[status]) await api.post(`/debts/${debt.id}/${action}`).expect(200);
  }
  const stored = await testDb()('debts').where({ id: debt.id }).first('status');
  expect(stored.status).toBe(status);
  return debt.id;
}

/** Types of the events recorded for `tenantId` about object `objectId`, oldest first. */
export async function eventTypesFor(tenantId: string, objectId: string): Promise<string[]> {
  const rows = await testDb()('events').where({ tenant_id: tenantId }).whereRaw(`data->'object'->>'id' = ?`, [objectId]).orderBy('seq').select('type');
  return rows.map((r: { type: string }) => r.type);
}

/**
 * Searches the agent's debts (`GET /debts/search?query=…`, one page) and checks the answer is 200
 * with `X-Total-Count` equal to the page's size.
 * @returns the ids found, sorted
 */
export async function searchedDebtIds(api: Api, query: string): Promise<string[]> {
  const res = await api.get('/debts/search').query({ query });
  expect([query, res.status]).toEqual([query, 200]);
  expect(res.headers['x-total-count']).toBe(String(res.body.data.length));
  return res.body.data.map((d: { id: string }) => d.id).sort();
}
