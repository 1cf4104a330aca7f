/**
 * Bodies of the public API's clients (docs/api.md section 15): every listed field accepted, stored,
 * returned; `configurations` validated by a schema per object (a field of the wrong shape is 400
 * naming it, nothing changed); `pause` with `end_at` as a date in the customer's zone.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { createDebt, type Parties } from '../support/debts.js';

let main: Awaited<ReturnType<typeof signedInTenant>>;
let parties: Parties;

beforeAll(async () => {
  main = await signedInTenant();
  parties = await seedParties(main.api);
});
afterAll(closeHarness);

const options = {
  instalments_allowed: true,
  min_payment_amount: 100,
  max_instalments: 12,
  min_instalment_amount: 500,
  settlement_allowed: false,
  max_discount_percent: 10,
};

describe('organisations', () => {
  test('internal_name, industry, logo, payment_options_configuration: stored, returned, updated', async () => {
    const body = {
      name: 'Acme Water',
      internal_name: 'acme-w',
      industry: 'utilities',
      logo: 'https://cdn.example.com/acme.png',
      payment_options_configuration: options,
    };
    const created = (await main.api.post('/organisations', body).expect(201)).body;
    expect(created).toMatchObject(body);
    const patched = (
      await main.api.patch(`/organisations/${created.id}`, { industry: 'water', payment_options_configuration: { instalments_allowed: false } }).expect(200)
    ).body;
    expect(patched).toMatchObject({ internal_name: 'acme-w', industry: 'water', payment_options_configuration: { instalments_allowed: false } });
    expect((await main.api.get(`/organisations/${created.id}`).expect(200)).body.payment_options_configuration).toEqual({ instalments_allowed: false });
    const plain = (await main.api.post('/organisations', { name: 'Plain' }).expect(201)).body;
    expect(plain).toMatchObject({ internal_name: null, industry: null, logo: null, payment_options_configuration: {} });
  });

  test.each([
    ['payment_options_configuration.max_instalments', { payment_options_configuration: { max_instalments: 'twelve' } }],
    ['payment_options_configuration.min_payment_amount', { payment_options_configuration: { min_payment_amount: 0 } }],
    ['payment_options_configuration.colour', { payment_options_configuration: { colour: 'red' } }],
    ['logo', { logo: 'not a url' }],
  ])('a wrong %s is 400 naming it, nothing changed', async (param, patch) => {
    const org = (await main.api.post('/organisations', { name: 'Stable', payment_options_configuration: options }).expect(201)).body;
    const res = await main.api.patch(`/organisations/${org.id}`, patch).expect(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', param });
    expect((await main.api.get(`/organisations/${org.id}`).expect(200)).body).toMatchObject({ payment_options_configuration: options, logo: null });
    expect((await main.api.post('/organisations', { name: 'Never', ...patch }).expect(400)).body.param).toBe(param);
  });
});

describe("the public API's payment options (docs/api.md sections 15 and 18)", () => {
  const publicFields = { pay_later_permitted: true, payment_plans_permitted: false, metadata: { plan_source: 'crm', tier: 'gold' } };

  test('pay_later_permitted, payment_plans_permitted and metadata beside ours: stored, returned, replaced whole by PATCH', async () => {
    const body = { name: 'Public Options', payment_options_configuration: { ...options, ...publicFields } };
    const created = (await main.api.post('/organisations', body).expect(201)).body;
    expect(created.payment_options_configuration).toEqual({ ...options, ...publicFields });
    expect((await main.api.get(`/organisations/${created.id}`).expect(200)).body.payment_options_configuration).toEqual({ ...options, ...publicFields });
    const row = await testDb()('organisations').where({ id: created.id }).first();
    expect(row.payment_options_configuration).toEqual({ ...options, ...publicFields });
    const replaced = { pay_later_permitted: false, metadata: { tier: 'silver' } };
    const patched = (await main.api.patch(`/organisations/${created.id}`, { payment_options_configuration: replaced }).expect(200)).body;
    expect(patched.payment_options_configuration).toEqual(replaced);
    const put = (await main.api.put(`/organisations/${created.id}`, { payment_options_configuration: { payment_plans_permitted: true } }).expect(200)).body;
    expect(put.payment_options_configuration).toEqual({ payment_plans_permitted: true });
  });

  test('a debt overrides them in configurations.payment_options: stored, returned, updated', async () => {
    const debt = await createDebt(main.api, parties, { configurations: { payment_options: { ...publicFields, max_instalments: 3 } } });
    expect(debt.configurations).toEqual({ payment_options: { ...publicFields, max_instalments: 3 } });
    const patched = (await main.api.patch(`/debts/${debt.id}`, { configurations: { payment_options: { pay_later_permitted: false } } }).expect(200)).body;
    expect(patched.configurations).toEqual({ payment_options: { pay_later_permitted: false } });
    expect((await main.api.get(`/debts/${debt.id}`).expect(200)).body.configurations).toEqual({ payment_options: { pay_later_permitted: false } });
  });

  test.each([
    ['pay_later_permitted', { pay_later_permitted: 'yes' }],
    ['payment_plans_permitted', { payment_plans_permitted: 1 }],
    ['metadata', { metadata: 'crm' }],
    ['metadata.tier', { metadata: { tier: 7 } }],
  ])('a wrong %s is 400 naming it, on organisations and debts, nothing changed', async (field, wrong) => {
    const org = (await main.api.post('/organisations', { name: 'Typed', payment_options_configuration: publicFields }).expect(201)).body;
    const res = await main.api.patch(`/organisations/${org.id}`, { payment_options_configuration: wrong }).expect(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', param: `payment_options_configuration.${field}` });
    expect((await main.api.get(`/organisations/${org.id}`).expect(200)).body.payment_options_configuration).toEqual(publicFields);
    expect((await main.api.post('/organisations', { name: 'Never', payment_options_configuration: wrong }).expect(400)).body.param).toBe(
      `payment_options_configuration.${field}`,
    );
    const debt = await createDebt(main.api, parties, { configurations: { payment_options: publicFields } });
    const bad = await main.api.patch(`/debts/${debt.id}`, { configurations: { payment_options: wrong } }).expect(400);
    expect(bad.body.param).toBe(`configurations.payment_options.${field}`);
    expect((await main.api.get(`/debts/${debt.id}`).expect(200)).body.configurations).toEqual({ payment_options: publicFields });
  });
});

describe('tenants', () => {
  test('configurations and metadata on /tenants/me: keys replaced, metadata merged; a wrong shape is 400', async () => {
    const first = (await main.api.patch('/tenants/me', { configurations: { default_currency: 'GBP' }, metadata: { team: 'ops' } }).expect(200)).body;
    expect(first).toMatchObject({ configurations: { default_currency: 'GBP' }, metadata: { team: 'ops' } });
    const second = (await main.api.put('/tenants/me', { configurations: { default_locale: 'en-GB' }, metadata: { region: 'uk' } }).expect(200)).body;
    expect(second).toMatchObject({ configurations: { default_currency: 'GBP', default_locale: 'en-GB' }, metadata: { team: 'ops', region: 'uk' } });
    const bad = await main.api.patch('/tenants/me', { configurations: { default_currency: 'XXX' } }).expect(400);
    expect(bad.body.param).toBe('configurations.default_currency');
    expect((await main.api.patch('/tenants/me', { configurations: { billing: true } }).expect(400)).body.param).toBe('configurations.billing');
    expect((await main.api.get('/tenants/me').expect(200)).body.configurations).toEqual({ default_currency: 'GBP', default_locale: 'en-GB' });
  });
});

describe('customers and debts', () => {
  test('customer kind "unknown"', async () => {
    const c = (await main.api.post('/customers', { kind: 'unknown', full_name: 'Someone' }).expect(201)).body;
    expect(c.kind).toBe('unknown');
    expect((await main.api.post('/customers', { kind: 'robot', full_name: 'X' }).expect(400)).body.param).toBe('kind');
  });

  test('debt originator and configurations: stored, returned, updated while initializing; a wrong shape is 400', async () => {
    const debt = await createDebt(main.api, parties, { originator: 'Old Bank plc', configurations: { payment_options: { max_instalments: 6 } } });
    expect(debt).toMatchObject({ originator: 'Old Bank plc', configurations: { payment_options: { max_instalments: 6 } } });
    const patched = (await main.api.patch(`/debts/${debt.id}`, { originator: 'Older Bank plc' }).expect(200)).body;
    expect(patched).toMatchObject({ originator: 'Older Bank plc', configurations: { payment_options: { max_instalments: 6 } } });
    const bad = await main.api.patch(`/debts/${debt.id}`, { configurations: { payment_options: { max_instalments: 0 } } }).expect(400);
    expect(bad.body.param).toBe('configurations.payment_options.max_instalments');
    expect((await main.api.patch(`/debts/${debt.id}`, { configurations: { strategy: 'x' } }).expect(400)).body.param).toBe('configurations.strategy');
    expect((await main.api.get(`/debts/${debt.id}`).expect(200)).body.configurations).toEqual({ payment_options: { max_instalments: 6 } });
    expect((await createDebt(main.api, parties)).configurations).toEqual({});
  });
});

describe('pause end_at', () => {
  const nextYear = new Date().getUTCFullYear() + 1;

  test('a date is the start of that day in the customer zone (London in summer: 23:00 UTC the day before)', async () => {
    const debt = await createDebt(main.api, parties);
    await main.api.post(`/debts/${debt.id}/ready`).expect(200);
    const paused = (await main.api.post(`/debts/${debt.id}/pause`, { end_at: `${nextYear}-07-01` }).expect(200)).body;
    expect(paused.status).toMatchObject({ value: 'paused', end_at: `${nextYear}-06-30T23:00:00.000Z` });
  });

  test('a customer elsewhere: its own zone; a date-time is taken as given', async () => {
    const cus = (await main.api.post('/customers', { full_name: 'Jean', preferred_locale: 'fr-FR' }).expect(201)).body.id;
    const debt = await createDebt(main.api, { ...parties, customerId: cus });
    await main.api.post(`/debts/${debt.id}/ready`).expect(200);
    const paused = (await main.api.post(`/debts/${debt.id}/pause`, { end_at: `${nextYear}-12-24` }).expect(200)).body;
    expect(paused.status.end_at).toBe(`${nextYear}-12-23T23:00:00.000Z`);
    await main.api.post(`/debts/${debt.id}/resume`).expect(200);
    const again = (await main.api.post(`/debts/${debt.id}/pause`, { end_at: `${nextYear}-12-24T10:00:00Z` }).expect(200)).body;
    expect(again.status.end_at).toBe(`${nextYear}-12-24T10:00:00.000Z`);
  });

  test.each([
    ['a past date', '2020-01-01', 422],
    ['a past date-time', '2020-01-01T00:00:00Z', 422],
    ['neither', '24/12/2026', 400],
  ])('%s is %s naming end_at, and the debt stays as it was', async (_what, endAt, status) => {
    const debt = await createDebt(main.api, parties);
    await main.api.post(`/debts/${debt.id}/ready`).expect(200);
    const res = await main.api.post(`/debts/${debt.id}/pause`, { end_at: endAt }).expect(status);
    expect(res.body.param).toBe('end_at');
    expect((await main.api.get(`/debts/${debt.id}`).expect(200)).body.status.value).toBe('prepared');
  });
});
