/**
 * Breathing space and vulnerability disclosures (docs/api.md section 19), over HTTP: a standard
 * breathing space moves the debt to `legal_protection` with `end_at` 60 days after its start, a
 * mental-health crisis one with no `end_at`; interest and fees are then refused; a vulnerability
 * disclosure moves it to `follow_up_required` with contact paused 30 days; each reaches the tenant
 * as its `debt.<status>` event at once; no proof asked. Bad input is 400 naming the field, a date
 * the rules refuse 422 naming it, a move the lifecycle refuses 409; nothing changed by any of them.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { closeHarness, seedParties, signedInTenant } from '../support/harness.js';
import { eventTypesFor, type Parties } from '../support/debts.js';
import { inDays, readyDebt } from '../worker/support.js';

let acme: Awaited<ReturnType<typeof signedInTenant>>;
let parties: Parties;

beforeAll(async () => {
  acme = await signedInTenant();
  parties = await seedParties(acme.api);
});
afterAll(closeHarness);

const debtOf = async (id: string) => (await acme.api.get(`/debts/${id}`).expect(200)).body;
/** An instant as London reads it: `YYYY-MM-DD HH:MM`. */
const inLondon = (at: string) => new Date(at).toLocaleString('sv-SE', { timeZone: 'Europe/London' }).slice(0, 16);

describe('POST /debts/{id}/breathing_space', () => {
  test('standard: legal_protection with end_at 60 days after start_on, the event at once; interest and fees refused', async () => {
    const id = await readyDebt(acme.api, parties);
    const body = { kind: 'standard', start_on: inDays(-5), adviser_reference: 'DRS-1234' };
    const debt = (await acme.api.post(`/debts/${id}/breathing_space`, body).expect(200)).body;
    expect(debt.status).toMatchObject({
      value: 'legal_protection',
      reason: 'breathing space (standard)',
      context: `adviser reference DRS-1234; started ${inDays(-5)}`,
      whodunnit: acme.tenant.clientId,
    });
    // The start of day 60 in the customer's zone (Europe/London by default).
    expect(inLondon(debt.status.end_at)).toBe(`${inDays(55)} 00:00`);
    expect(await eventTypesFor(acme.tenant.tenantId, id)).toContain('debt.legal_protection');
    const fee = await acme.api.post(`/debts/${id}/line_items`, { kind: 'fee', amount: 100, currency: 'GBP' }).expect(409);
    expect(fee.body.param).toBe('kind');
    const again = await acme.api.post(`/debts/${id}/breathing_space`, body).expect(409);
    expect(again.body.code).toBe('invalid_state_transition');
  });

  test('mental-health crisis: no end_at (it lasts as long as the crisis)', async () => {
    const id = await readyDebt(acme.api, parties);
    const body = { kind: 'mental_health_crisis', start_on: inDays(0), adviser_reference: 'AMHP-77' };
    const debt = (await acme.api.post(`/debts/${id}/breathing_space`, body).expect(200)).body;
    expect(debt.status).toMatchObject({ value: 'legal_protection', reason: 'breathing space (mental_health_crisis)', end_at: null });
  });

  test.each([
    [{ kind: 'long', start_on: inDays(0), adviser_reference: 'R' }, 400, 'kind'],
    [{ kind: 'standard', start_on: 'yesterday', adviser_reference: 'R' }, 400, 'start_on'],
    [{ kind: 'standard', start_on: inDays(0) }, 400, 'adviser_reference'],
    [{ kind: 'standard', start_on: inDays(0), adviser_reference: '' }, 400, 'adviser_reference'],
    [{ kind: 'standard', start_on: inDays(2), adviser_reference: 'R' }, 422, 'start_on'],
    [{ kind: 'standard', start_on: inDays(-61), adviser_reference: 'R' }, 422, 'start_on'],
  ])('%j is %d naming %s; nothing changed', async (body, status, param) => {
    const id = await readyDebt(acme.api, parties);
    const before = await debtOf(id);
    const res = await acme.api.post(`/debts/${id}/breathing_space`, body).expect(status);
    expect(res.body.param).toBe(param);
    expect(await debtOf(id)).toEqual(before);
    expect(await eventTypesFor(acme.tenant.tenantId, id)).not.toContain('debt.legal_protection');
  });
});

describe('POST /debts/{id}/vulnerability', () => {
  test('follow_up_required with contact paused 30 days, the event at once', async () => {
    const id = await readyDebt(acme.api, parties);
    const body = { kind: 'bereavement', details: 'My mother died in March.' };
    const started = Date.now();
    const debt = (await acme.api.post(`/debts/${id}/vulnerability`, body).expect(200)).body;
    expect(debt.status).toMatchObject({ value: 'follow_up_required', reason: 'vulnerability (bereavement)', context: 'My mother died in March.' });
    const endAt = new Date(debt.status.end_at).getTime();
    expect(endAt - started).toBeGreaterThan(30 * 86_400_000 - 60_000);
    expect(endAt - started).toBeLessThan(30 * 86_400_000 + 60_000);
    expect(await eventTypesFor(acme.tenant.tenantId, id)).toContain('debt.follow_up_required');
    // Already awaiting follow-up: refused, nothing changed.
    await acme.api.post(`/debts/${id}/vulnerability`, { kind: 'health', details: 'x' }).expect(409);
    expect((await debtOf(id)).status.reason).toBe('vulnerability (bereavement)');
  });

  test.each([
    [{ kind: 'sad', details: 'x' }, 'kind'],
    [{ kind: 'health' }, 'details'],
    [{ kind: 'income_shock', details: '' }, 'details'],
    [{ kind: 'other', details: 'over 2000 characters'.padEnd(2001, '.') }, 'details'],
  ])('%p is 400 naming %s; nothing changed', async (body, param) => {
    const id = await readyDebt(acme.api, parties);
    const before = await debtOf(id);
    const res = await acme.api.post(`/debts/${id}/vulnerability`, body).expect(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', param });
    expect(await debtOf(id)).toEqual(before);
  });

  test("another tenant's debt is 404", async () => {
    const id = await readyDebt(acme.api, parties);
    const other = await signedInTenant();
    await other.api.post(`/debts/${id}/vulnerability`, { kind: 'health', details: 'x' }).expect(404);
    await other.api.post(`/debts/${id}/breathing_space`, { kind: 'standard', start_on: inDays(0), adviser_reference: 'R' }).expect(404);
    expect((await debtOf(id)).status.value).toBe('prepared');
  });
});
