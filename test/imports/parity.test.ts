/**
 * A placement row makes what the API's calls make (docs/api.md section 16): one tenant imports a
 * row, another makes the same account with `POST /customers`, `POST /debts` and
 * `POST /debts/{id}/ready`; the stored rows and every event, in order and with their payloads,
 * are the same but for ids, times and the client (the worker writes placements set-wise, a batch
 * at a time, so this is what holds it to the API's writes).
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { RunningService } from '@dms/tools/processes';
import { closeHarness, signedInTenant, testDb } from '../support/harness.js';
import { csvOf, finished, startImportWorker, upload } from './support.js';

type Tenant = Awaited<ReturnType<typeof signedInTenant>>;
let worker: RunningService;
let imported: Tenant;
let called: Tenant;

beforeAll(async () => {
  [imported, called] = [await signedInTenant(), await signedInTenant()];
  worker = await startImportWorker([imported.tenant.tenantId]);
});

afterAll(async () => {
  await worker?.stop('SIGKILL');
  await closeHarness();
});

const HEADER = ['account_number', 'balance_total', 'first_name', 'last_name', 'dob', 'email', 'mobile', 'phone', 'address1', 'address2', 'city'];
const MORE = ['county', 'postcode', 'country', 'company', 'balance_principal', 'balance_interest', 'balance_fees', 'tags', 'notes', 'extra_branch'];
const ROW = ['PAR-1', '1822.54', 'Ada', 'Byron', '1985-12-10', 'ada@example.com', '447400511278', '442079460605', '1 Victoria Place', 'Flat 2', 'Leeds'];
const ROW_MORE = [
  'West Yorkshire',
  'LS1 4AB',
  'United Kingdom',
  'Analytical Engines Ltd',
  '1785.37',
  '12.17',
  '25.00',
  '"priority services, vip"',
  'call after 6',
  'Leeds North',
];

/** What the API is sent for the same row. */
function bodies(organisationId: string) {
  const customer = {
    kind: 'company',
    full_name: 'Analytical Engines Ltd',
    first_name: 'Ada',
    last_name: 'Byron',
    date_of_birth: '1985-12-10',
    contact_details: [
      { type: 'email', value: 'ada@example.com', primary: true },
      { type: 'mobile_number', value: '+447400511278', primary: true },
      { type: 'phone_number', value: '+442079460605', primary: true },
      {
        type: 'address',
        value: { line_1: '1 Victoria Place', line_2: 'Flat 2', city: 'Leeds', county: 'West Yorkshire', postal_code: 'LS1 4AB', country: 'GB' },
        primary: true,
      },
    ],
  };
  const debt = {
    organisation_id: organisationId,
    account_number: 'PAR-1',
    currency: 'GBP',
    breakdown: { principal: 178537, interest: 1217, fees: 2500 },
    tags: ['priority-services', 'vip'],
    metadata: { notes: 'call after 6', branch: 'Leeds North' },
  };
  return { customer, debt };
}

/** `value` with ids, times and the tenant's client id replaced by placeholders. */
function normalised(value: unknown, clientId: string): unknown {
  return JSON.parse(
    JSON.stringify(value)
      .replace(/"[a-z]{2,4}_[0-9A-Za-z]{24}"/g, '"<id>"')
      .replace(/\/debts\/deb_[0-9A-Za-z]{24}"/g, '/debts/<id>"')
      .replace(/"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)"/g, '"<time>"')
      .replaceAll(`"${clientId}"`, '"<client>"'),
  );
}

/** The tenant's events but the organisation's and the import's, in order, normalised. */
async function eventsOf(t: Tenant): Promise<unknown[]> {
  const rows = await testDb()('events')
    .where({ tenant_id: t.tenant.tenantId })
    .whereNot('type', 'like', 'organisation.%')
    .whereNot('type', 'like', 'import.%')
    .orderBy('seq')
    .select('type', 'api_version', 'data');
  return rows.map((r) => normalised(r, t.tenant.clientId));
}

/** The tenant's one debt with its customer and line items as the API shows them, normalised. */
async function debtOf(t: Tenant): Promise<unknown> {
  const list = (await t.api.get('/debts').expect(200)).body.data;
  expect(list).toHaveLength(1);
  const debt = (await t.api.get(`/debts/${list[0].id}?expand[]=customer&expand[]=line_items`).expect(200)).body;
  return normalised(debt, t.tenant.clientId);
}

test('a placement row stores the same customer, details, debt and line items, with the same events in the same order, as the API calls', async () => {
  const importedOrg = (await imported.api.post('/organisations', { name: 'Parity Ltd' }).expect(201)).body.id;
  const calledOrg = (await called.api.post('/organisations', { name: 'Parity Ltd' }).expect(201)).body.id;
  const res = await upload(imported.api, 'placement', csvOf([...HEADER, ...MORE], [[...ROW, ...ROW_MORE]]), { organisation_id: importedOrg }).expect(201);
  expect(await finished(imported.api, res.body.id)).toMatchObject({ status: 'completed', rows_succeeded: 1, rows_failed: 0 });

  const { customer, debt } = bodies(calledOrg);
  const made = (await called.api.post('/customers', customer).expect(201)).body;
  const created = (await called.api.post('/debts', { ...debt, customer_id: made.id }).expect(201)).body;
  await called.api.post(`/debts/${created.id}/ready`, {}).expect(200);

  expect(await debtOf(imported)).toEqual(await debtOf(called));
  const [a, b] = [await eventsOf(imported), await eventsOf(called)];
  expect(a.map((e) => (e as { type: string }).type)).toEqual([
    'customer.created',
    ...Array(4).fill('customer_contact_detail.created'),
    'debt.created',
    ...Array(3).fill('line_item.created'),
    'debt.prepared',
  ]);
  expect(a).toEqual(b);
}, 300_000);
