/**
 * The operator API (docs/api.md section 12): operator clients hold `operations:*` scopes no tenant
 * client can be given or granted; their requests name the tenant in `Tenant-Id` (400 when missing
 * or unknown) and act only within it, on tenant routes too; a tenant's token on an operator route
 * is 403 and changes nothing; every operator change records `whodunnit: operator:<client id>` and
 * its reason; a move the lifecycle forbids is 409 naming the allowed statuses, nothing changed.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import { AUDIENCE, AUTH_URL, closeHarness, newOperator, operatorAs, seedParties, signedInTenant, tokenFor } from '../support/harness.js';
import { createDebt, eventTypesFor } from '../support/debts.js';
import { adminJson, runAdmin } from '../support/admin-cli.js';

afterAll(closeHarness);

let acme: Awaited<ReturnType<typeof signedInTenant>>;
let globex: Awaited<ReturnType<typeof signedInTenant>>;
let operatorId: string;
let operatorToken: string;
let parties: Awaited<ReturnType<typeof seedParties>>;

beforeAll(async () => {
  [acme, globex] = await Promise.all([signedInTenant(), signedInTenant()]);
  const operator = await newOperator();
  operatorId = operator.clientId;
  operatorToken = await tokenFor(operator);
  parties = await seedParties(acme.api);
});

/** The operator acting for `tenantId` (Acme by default; `null`: no `Tenant-Id` at all). */
const ops = (tenantId: string | null = acme.tenant.tenantId) => operatorAs(operatorToken, tenantId ?? undefined);
const preparedDebt = async () => {
  const debt = await createDebt(acme.api, parties);
  await acme.api.post(`/debts/${debt.id}/ready`).expect(200);
  return debt.id as string;
};

describe('operator clients', () => {
  test('the admin CLI creates one with the operator scopes and no tenant', async () => {
    const issued = await adminJson<{ kind: string; tenant_id: string | null; scope: string }>(['clients', 'create', '--operator', '--name', 'ops']);
    expect(issued).toMatchObject({ kind: 'operator', tenant_id: null, scope: 'operations:read operations:write' });
  });

  test('no tenant client can be given an operator scope, nor be granted one at the token endpoint', async () => {
    const refused = await runAdmin(['clients', 'create', '--tenant', acme.tenant.tenantId, '--name', 'x', '--scope', 'operations:read']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/unknown scope "operations:read"/);
    expect(refused.stdout).toBe('');
    const res = await request(AUTH_URL)
      .post('/oauth/token')
      .auth(acme.tenant.clientId, acme.tenant.clientSecret)
      .type('form')
      .send({ grant_type: 'client_credentials', audience: AUDIENCE, scope: 'operations:write' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_scope');
  });
});

describe('Tenant-Id', () => {
  test("an operator's request without it, or naming no tenant, is 400 naming the header", async () => {
    for (const tenantId of [null, 'ten_000000000000000000000000']) {
      const res = await ops(tenantId).get('/debts').expect(400);
      expect(res.body).toMatchObject({ code: 'parameter_invalid', param: 'Tenant-Id' });
    }
  });

  test('with it, an operator reads and writes that tenant alone through the tenant routes, as operator:<client id>', async () => {
    const id = await preparedDebt();
    const list = await ops().get('/debts?limit=100').expect(200);
    expect(list.body.data.map((d: { id: string }) => d.id)).toContain(id);
    await ops(globex.tenant.tenantId).get(`/debts/${id}`).expect(404);
    const paused = await ops().post(`/debts/${id}/pause`, { reason: 'customer in hospital' }).expect(200);
    expect(paused.body.status).toMatchObject({ value: 'paused', whodunnit: `operator:${operatorId}`, reason: 'customer in hospital' });
  });
});

describe('POST /operator/debts/{id}/status', () => {
  test('moves a debt into an operations status with its reason, operator:<client id> and the debt.<status> event', async () => {
    const id = await preparedDebt();
    const res = await ops().post(`/operator/debts/${id}/status`, { status: 'assessing', reason: 'income and expenditure review' }).expect(200);
    expect(res.body.status).toMatchObject({ value: 'assessing', reason: 'income and expenditure review', whodunnit: `operator:${operatorId}` });
    expect((await acme.api.get(`/debts/${id}`).expect(200)).body.status.value).toBe('assessing');
    expect(await eventTypesFor(acme.tenant.tenantId, id)).toContain('debt.assessing');
    const back = await ops().post(`/operator/debts/${id}/status`, { status: 'resumed', reason: 'assessment done' }).expect(200);
    expect(back.body.status.value).toBe('resumed');
  });

  test('legal_protection takes an end_at in the future; any other status takes none', async () => {
    const id = await preparedDebt();
    const endAt = new Date(Date.now() + 60 * 86_400_000).toISOString();
    expect((await ops().post(`/operator/debts/${id}/status`, { status: 'assessing', reason: 'r', end_at: endAt }).expect(400)).body.param).toBe('end_at');
    const past = await ops().post(`/operator/debts/${id}/status`, { status: 'legal_protection', reason: 'breathing space', end_at: '2020-01-01T00:00:00Z' });
    expect(past.status).toBe(422);
    expect(past.body.param).toBe('end_at');
    const res = await ops().post(`/operator/debts/${id}/status`, { status: 'legal_protection', reason: 'breathing space', end_at: endAt }).expect(200);
    expect(res.body.status).toMatchObject({ value: 'legal_protection', end_at: endAt, reason: 'breathing space' });
  });

  test('a move the lifecycle forbids is 409 naming the allowed statuses, and changes nothing', async () => {
    const id = await preparedDebt();
    await ops().post(`/operator/debts/${id}/status`, { status: 'returned', reason: 'handed back' }).expect(200);
    const res = await ops().post(`/operator/debts/${id}/status`, { status: 'queried', reason: 'too late' }).expect(409);
    expect(res.body.code).toBe('invalid_state_transition');
    expect(res.body.message).toMatch(/'returned' cannot be moved by 'query'; allowed from: .*prepared/);
    const debt = (await acme.api.get(`/debts/${id}`).expect(200)).body;
    expect(debt.status).toMatchObject({ value: 'returned', reason: 'handed back' });
  });

  test("a tenant's token is 403 and changes nothing; a bad body is 400 naming the field", async () => {
    const id = await preparedDebt();
    const res = await acme.api.post(`/operator/debts/${id}/status`, { status: 'closed', reason: 'no' }).expect(403);
    expect(res.body.code).toBe('insufficient_scope');
    expect((await acme.api.get(`/debts/${id}`).expect(200)).body.status.value).toBe('prepared');
    expect((await ops().post(`/operator/debts/${id}/status`, { status: 'paid', reason: 'x' }).expect(400)).body.param).toBe('status');
    expect((await ops().post(`/operator/debts/${id}/status`, { status: 'closed' }).expect(400)).body.param).toBe('reason');
    await ops(globex.tenant.tenantId).post(`/operator/debts/${id}/status`, { status: 'closed', reason: 'x' }).expect(404);
  });
});
