/**
 * Test mode keeps test and live data apart (docs/api.md section 15), for every tenant-owned
 * resource of the registry: a live token never lists, counts, searches or retrieves a test object,
 * a test token never a live one, and every object each shows carries its `livemode`. The objects
 * clients make come from the API (a proposal, which customers make in the portal, from its domain
 * function); those the worker makes come from its own paths, in both modes at
 * once: the collection engine's communications (a worker over the local mail stand-in), an
 * import's rows and row errors (the worker processing an upload), a payout run's payouts, balance
 * items and payout accounts (the run an operator starts for each mode's tenant). The table below
 * must name every tenant-owned table of the registry, so a new resource fails here until it has
 * its row.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { TENANT_TABLES } from '@dms/domain';
import { createProposal } from '@dms/domain/proposals';
import { closeHarness, newOperator, operatorAs, testDb, tokenFor } from '../support/harness.js';
import { eventually } from '../support/eventually.js';
import { engineRig, offsetToLondon, type EngineRig } from '../engine/support.js';
import { PLACEMENT_HEADER, csvOf, placementRow, upload } from '../imports/support.js';
import { bothModes, type Mode } from './support.js';
import { statementBody } from '../circumstances/support.js';

let rig: EngineRig | undefined;
afterAll(async () => {
  await rig?.stop();
  await closeHarness();
});

/** What `fill` made in one mode, by table. */
type Made = Record<string, string>;

/** Makes one object of every resource through the API; returns their ids by table (and the parents). */
async function fill({ api, tenant }: Mode): Promise<Made> {
  const payouts = { fee_basis_points: 250, fee_minimum: 20 };
  const strategy = { steps: [{ day: 0, delivery_method: 'email', template: 'default-email-first' }] };
  const org = (await api.post('/organisations', { name: 'Northwind Utilities', configurations: { payouts, collection_strategy: strategy } }).expect(201)).body
    .id;
  const cus = (await api.post('/customers', { kind: 'individual', first_name: 'Ada', last_name: 'Lovelace' }).expect(201)).body.id;
  const cd = (await api.post(`/customers/${cus}/contact_details`, { type: 'email', value: 'ada@example.com' }).expect(201)).body.id;
  const ocd = (await api.post(`/organisations/${org}/contact_details`, { type: 'email', value: 'help@northwind.example' }).expect(201)).body.id;
  const ep = (await api.post('/webhooks', { url: 'https://hooks.example.com/dms', enabled_events: ['*'] }).expect(201)).body.id;
  const debt = (await api.post('/debts', { customer_id: cus, organisation_id: org, currency: 'GBP', breakdown: { principal: 10000 } }).expect(201)).body.id;
  await api.post(`/debts/${debt}/ready`).expect(200);
  const li = (await api.post(`/debts/${debt}/line_items`, { kind: 'fee', amount: 500 }).expect(201)).body.id;
  const iae = (await api.post(`/debts/${debt}/income_and_expenditures`, statementBody()).expect(201)).body.id;
  const inv = (await api.post(`/debts/${debt}/invoices`, { reference: 'INV-1' }).expect(201)).body.id;
  const pay = (await api.post(`/debts/${debt}/payments`, { amount: 1000, currency: 'GBP' }).expect(201)).body.id;
  const planDebt = (await api.post('/debts', { customer_id: cus, organisation_id: org, currency: 'GBP', breakdown: { principal: 6000 } }).expect(201)).body.id;
  await api.post(`/debts/${planDebt}/ready`).expect(200);
  const startOn = new Date().toISOString().slice(0, 10);
  const plan = (await api.post(`/debts/${planDebt}/payment_plans`, { frequency: 'weekly', instalment_count: 2, start_on: startOn }).expect(201)).body.id;
  // A customer's proposal (made in the portal) on a debt of its own: it moves that debt to `assessing`.
  const proposalDebt = (await api.post('/debts', { customer_id: cus, organisation_id: org, currency: 'GBP', breakdown: { principal: 6000 } }).expect(201)).body
    .id;
  await api.post(`/debts/${proposalDebt}/ready`).expect(200);
  const proposalIae = (await api.post(`/debts/${proposalDebt}/income_and_expenditures`, statementBody()).expect(201)).body.id;
  const terms = { instalment_amount: 100, frequency: 'weekly', start_on: startOn, income_and_expenditure: proposalIae };
  const prp = (await createProposal(testDb(), tenant.tenantId, proposalDebt, terms, `customer:${cus}`)).id;
  const template = {
    name: 'reminder-day-0-email',
    delivery_method: 'email',
    subject: 'Your account {{ debt.account_number }}',
    body: '<p>Dear {{ customer.first_name }}</p>',
  };
  const tpl = (await api.post('/communication_templates', template).expect(201)).body.id;
  const version = (await api.get(`/communication_templates/${tpl}/versions`).expect(200)).body.data[0].id;
  const delivery = (await api.get(`/webhooks/${ep}/deliveries`).expect(200)).body.data[0].id;
  const event = (await api.get('/events?limit=1').expect(200)).body.data[0].id;
  // A placement of one good row and one bad one: the worker makes its debt and its row error.
  const file = csvOf(PLACEMENT_HEADER, [placementRow('ISO-1'), placementRow('ISO-2', { balance_total: 'lots' })]);
  const imp = (await upload(api, 'placement', file, { organisation_id: org }).expect(201)).body.id;
  return {
    organisations: org,
    customers: cus,
    customer_contact_details: cd,
    organisation_contact_details: ocd,
    debts: debt,
    line_items: li,
    income_and_expenditures: iae,
    invoices: inv,
    payments: pay,
    payment_plans: plan,
    proposals: prp,
    communication_templates: tpl,
    communication_template_versions: version,
    webhook_endpoints: ep,
    webhook_deliveries: delivery,
    events: event,
    imports: imp,
  };
}

/**
 * Makes, in `mode`, the objects only the worker makes, once the worker runs: waits for the engine's
 * communication of `made.debts` and the import's row error, and runs a payout of the organisation
 * (the run of the payout worker, started by an operator acting for the mode's tenant).
 */
async function fillWorkerMade({ api, tenant }: Mode, made: Made): Promise<void> {
  const first = async (path: string) => ((await api.get(path).expect(200)).body.data[0]?.id as string | undefined) ?? '';
  const firstOnceThere = async (table: string, path: string) => eventually(async () => (made[table] = await first(path)) !== '', `${path} not empty`, 60_000);
  await firstOnceThere('communications', `/debts/${made.debts}/communications`);
  await firstOnceThere('import_errors', `/imports/${made.imports}/errors`);
  const ops = operatorAs(await tokenFor(await newOperator()), tenant.tenantId);
  // An operator's read of the customer is recorded in the customer's access log.
  await ops.get(`/customers/${made.customers}`).expect(200);
  made.customer_access_log = await first(`/customers/${made.customers}/access_log`);
  [made.payouts] = (await ops.post('/operator/payouts/run', { organisation_id: made.organisations }).expect(200)).body.payouts;
  made.balance_items = await first(`/payouts/${made.payouts}/items`);
  const account = await testDb()('payout_accounts').where({ tenant_id: tenant.tenantId, organisation_id: made.organisations }).first('id');
  made.payout_accounts = account.id;
}

const SINCE = 'created_at>"2000-01-01T00:00:00Z"';

/** How each resource is listed, retrieved and searched, given the ids `fill` made in one mode. */
const PATHS: Record<string, { list: (m: Made) => string; retrieve?: (m: Made) => string; search?: (m: Made) => string }> = {
  organisations: { list: () => '/organisations', retrieve: (m) => `/organisations/${m.organisations}` },
  customers: { list: () => '/customers', retrieve: (m) => `/customers/${m.customers}`, search: () => `/customers/search?query=${encodeURIComponent(SINCE)}` },
  customer_access_log: { list: (m) => `/customers/${m.customers}/access_log` },
  customer_contact_details: {
    list: (m) => `/customers/${m.customers}/contact_details`,
    retrieve: (m) => `/customers/${m.customers}/contact_details/${m.customer_contact_details}`,
  },
  organisation_contact_details: {
    list: (m) => `/organisations/${m.organisations}/contact_details`,
    retrieve: (m) => `/organisations/${m.organisations}/contact_details/${m.organisation_contact_details}`,
  },
  debts: { list: () => '/debts', retrieve: (m) => `/debts/${m.debts}`, search: () => `/debts/search?query=${encodeURIComponent(SINCE)}` },
  line_items: { list: (m) => `/debts/${m.debts}/line_items` },
  income_and_expenditures: { list: (m) => `/debts/${m.debts}/income_and_expenditures` },
  invoices: {
    list: (m) => `/debts/${m.debts}/invoices`,
    retrieve: (m) => `/debts/${m.debts}/invoices/${m.invoices}`,
    search: (m) => `/debts/${m.debts}/invoices/search?query=reference:INV-1`,
  },
  payments: { list: () => '/payments', retrieve: (m) => `/payments/${m.payments}`, search: () => `/payments/search?query=${encodeURIComponent(SINCE)}` },
  payment_plans: { list: () => '/payment_plans', retrieve: (m) => `/payment_plans/${m.payment_plans}` },
  proposals: { list: () => '/proposals', retrieve: (m) => `/proposals/${m.proposals}` },
  communication_templates: { list: () => '/communication_templates', retrieve: (m) => `/communication_templates/${m.communication_templates}` },
  communication_template_versions: { list: (m) => `/communication_templates/${m.communication_templates}/versions` },
  webhook_endpoints: { list: () => '/webhooks', retrieve: (m) => `/webhooks/${m.webhook_endpoints}` },
  webhook_deliveries: { list: (m) => `/webhooks/${m.webhook_endpoints}/deliveries` },
  events: { list: () => '/events', retrieve: (m) => `/events/${m.events}` },
  communications: {
    list: () => '/communications',
    retrieve: (m) => `/communications/${m.communications}`,
    search: () => `/communications/search?query=${encodeURIComponent(SINCE)}`,
  },
  imports: { list: () => '/imports', retrieve: (m) => `/imports/${m.imports}` },
  import_errors: { list: (m) => `/imports/${m.imports}/errors` },
  payouts: { list: () => '/payouts', retrieve: (m) => `/payouts/${m.payouts}`, search: () => `/payouts/search?query=${encodeURIComponent(SINCE)}` },
  balance_items: { list: (m) => `/payouts/${m.payouts}/items` },
};

/**
 * Tenant-owned tables the API never shows: each mode's rows stay under its own tenant, and a run
 * in one mode never reads or writes the other's (checked on the rows, below).
 */
const NOT_SHOWN = ['payout_accounts'];

let live: Mode;
let testMode: Mode;
const made: { live: Made; test: Made } = { live: {}, test: {} };

beforeAll(async () => {
  rig = await engineRig();
  ({ live, test: testMode } = await bothModes());
  [made.live, made.test] = await Promise.all([fill(live), fill(testMode)]);
  // One worker for both modes: the engine works both tenants' debts, and processes both imports.
  await rig.worker([live.tenant.tenantId, testMode.tenant.tenantId], offsetToLondon(12));
  await Promise.all([fillWorkerMade(live, made.live), fillWorkerMade(testMode, made.test)]);
});

test('the table covers every tenant-owned resource of the registry', () => {
  expect([...Object.keys(PATHS), ...NOT_SHOWN].sort()).toEqual([...TENANT_TABLES].sort());
});

test("payout accounts: each mode's under its own tenant; neither mode's run touched the other's", async () => {
  for (const [mode, other] of [
    [live, testMode],
    [testMode, live],
  ] as const) {
    const own = made[mode === live ? 'live' : 'test'];
    const rows = await testDb()('payout_accounts').where({ id: own.payout_accounts }).select('tenant_id', 'organisation_id');
    expect(rows).toEqual([{ tenant_id: mode.tenant.tenantId, organisation_id: own.organisations }]);
    const theirs = await testDb()('payout_accounts').where({ tenant_id: other.tenant.tenantId }).select('organisation_id');
    expect(theirs.map((r: { organisation_id: string }) => r.organisation_id)).not.toContain(own.organisations);
    const payouts = await testDb()('payouts').where({ tenant_id: mode.tenant.tenantId }).select('organisation_id');
    expect(payouts.every((p: { organisation_id: string }) => p.organisation_id === own.organisations)).toBe(true);
  }
});

test("the two modes' data live under two tenants, the test one paired with the live one", async () => {
  expect(testMode.tenant.tenantId).not.toBe(live.tenant.tenantId);
  const pair = await testDb()('tenants').where({ id: testMode.tenant.tenantId }).first('livemode', 'live_tenant_id');
  expect(pair).toEqual({ livemode: false, live_tenant_id: live.tenant.tenantId });
  expect((await live.api.get('/tenants/me').expect(200)).body).toMatchObject({ id: live.tenant.tenantId, livemode: true });
  expect((await testMode.api.get('/tenants/me').expect(200)).body).toMatchObject({ id: testMode.tenant.tenantId, livemode: false });
});

const MODES: Array<['live' | 'test', boolean]> = [
  ['live', true],
  ['test', false],
];

describe.each(Object.keys(PATHS))('%s', (table) => {
  const paths = PATHS[table]!;
  test.each(MODES)('a %s token lists and counts only its own mode, each with its livemode', async (mode, livemode) => {
    const [own, other] = mode === 'live' ? [made.live, made.test] : [made.test, made.live];
    const api = mode === 'live' ? live.api : testMode.api;
    const res = await api.get(`${paths.list(own)}${paths.list(own).includes('?') ? '&' : '?'}limit=100`).expect(200);
    const ids = res.body.data.map((o: { id: string }) => o.id);
    expect(ids).toContain(own[table]);
    expect(ids).not.toContain(other[table]);
    expect(res.body.data.every((o: { livemode: unknown }) => o.livemode === livemode)).toBe(true);
    expect(res.headers['x-total-count']).toBe(String(ids.length));
    if (paths.search) {
      const found = await api.get(paths.search(own)).expect(200);
      const foundIds = found.body.data.map((o: { id: string }) => o.id);
      expect(foundIds).toContain(own[table]);
      expect(foundIds).not.toContain(other[table]);
      expect(found.body.data.every((o: { livemode: unknown }) => o.livemode === livemode)).toBe(true);
    }
    if (paths.retrieve) expect((await api.get(paths.retrieve(own)).expect(200)).body.livemode).toBe(livemode);
  });

  test.each(MODES)("a %s token gets 404 for the other mode's objects, as for missing ones", async (mode) => {
    const other = mode === 'live' ? made.test : made.live;
    const api = mode === 'live' ? live.api : testMode.api;
    const path = paths.retrieve?.(other) ?? paths.list(other);
    // A top-level list has no parent to refuse: the other mode's objects are simply absent (above).
    if (path === paths.list(made.live) && path === paths.list(made.test)) return;
    const res = await api.get(path).expect(404);
    expect(res.body).toMatchObject({ object: 'error', code: 'resource_missing' });
  });
});

/** Every object with an `object` type inside `value` (not `value` itself, not metadata, lists or errors). */
function embeddedObjects(value: unknown, top = true): Array<{ object: string; livemode?: unknown }> {
  if (Array.isArray(value)) return value.flatMap((v) => embeddedObjects(v, false));
  if (value === null || typeof value !== 'object') return [];
  const inner = Object.entries(value).flatMap(([k, v]) => (k === 'metadata' ? [] : embeddedObjects(v, false)));
  const self = value as { object?: unknown; livemode?: unknown };
  return !top && typeof self.object === 'string' && !['list', 'error'].includes(self.object) ? [self as { object: string }, ...inner] : inner;
}

test('every event and the object it carries show their mode; each endpoint gets only its own mode\u2019s deliveries', async () => {
  for (const [mode, livemode] of MODES) {
    const api = mode === 'live' ? live.api : testMode.api;
    const events = (await api.get('/events?limit=100').expect(200)).body.data as Array<{
      id: string;
      livemode: boolean;
      data: { object: { livemode?: boolean } };
    }>;
    expect(events.length).toBeGreaterThan(5);
    for (const e of events) expect([e.livemode, e.data.object.livemode]).toEqual([livemode, livemode]);
    // Objects embedded in an event's object (a customer's contact details) show the mode too.
    const nested = events.flatMap((e) => embeddedObjects(e.data.object));
    expect(nested.length).toBeGreaterThan(0);
    expect(nested.filter((o) => o.livemode !== livemode)).toEqual([]);
    const ep = mode === 'live' ? made.live.webhook_endpoints : made.test.webhook_endpoints;
    const deliveries = (await api.get(`/webhooks/${ep}/deliveries?limit=100`).expect(200)).body.data as Array<{ event: string }>;
    const own = new Set(events.map((e) => e.id));
    expect(deliveries.length).toBeGreaterThan(0);
    expect(deliveries.every((d) => own.has(d.event))).toBe(true);
  }
});
