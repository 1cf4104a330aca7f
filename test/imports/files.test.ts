/**
 * File imports (docs/api.md section 16) over HTTP with a real worker: the sample placement file
 * placed exactly as the API's calls would place it (customer, contact details, debt, line items,
 * `prepared`, their events), its deliberately broken row reported as JSON and CSV, the same file
 * answered by the same import, then the transaction, arrangement and closure samples applied with
 * their rules (closure codes to statuses, insolvency context, HOLD until a date).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { RunningService } from '@dms/tools/processes';
import { API_URL, closeHarness, signedInTenant, testDb } from '../support/harness.js';
import { runScript } from '../support/run-script.js';
import { eventTypesFor } from '../support/debts.js';
import { csvOf, debtByAccount, eventCounts, finished, sample, startImportWorker, upload } from './support.js';

type Tenant = Awaited<ReturnType<typeof signedInTenant>>;
let t: Tenant;
let organisationId: string;
let worker: RunningService;

beforeAll(async () => {
  t = await signedInTenant();
  organisationId = (await t.api.post('/organisations', { name: 'Northwind Energy' }).expect(201)).body.id;
  worker = await startImportWorker([t.tenant.tenantId]);
});

afterAll(async () => {
  await worker?.stop('SIGKILL');
  await closeHarness();
});

test('the placement sample: queued, polled to completed, each account placed as the API would place it, the broken row reported', async () => {
  const res = await upload(t.api, 'placement', sample('placement'), { organisation_id: organisationId }).expect(201);
  expect(res.body).toMatchObject({
    object: 'import',
    type: 'placement',
    organisation: organisationId,
    rows_total: 300,
    filename: 'placement.csv',
    failure: null,
  });
  expect(res.body.id).toMatch(/^imp_[0-9A-Za-z]{24}$/);
  expect(res.body.sha256).toMatch(/^[0-9a-f]{64}$/);
  // The same file of the same type: the same import, not a second one.
  const again = await upload(t.api, 'placement', sample('placement'), { organisation_id: organisationId }).expect(200);
  expect(again.body.id).toBe(res.body.id);

  const done = await finished(t.api, res.body.id);
  expect(done).toMatchObject({ status: 'completed', rows_total: 300, rows_processed: 300, rows_succeeded: 299, rows_failed: 1 });
  expect(done.finished_at).not.toBeNull();
  const list = await t.api.get('/imports').expect(200);
  expect(list.body.data.map((i: { id: string }) => i.id)).toEqual([res.body.id]);
  expect(list.headers['x-total-count']).toBe('1');

  const errors = (await t.api.get(`/imports/${res.body.id}/errors`).expect(200)).body.data;
  expect(errors).toEqual([expect.objectContaining({ object: 'import_error', import: res.body.id, row: 43, column: 'balance_total', code: 'invalid_amount' })]);
  const csv = await t.api.get(`/imports/${res.body.id}/errors.csv`).expect(200);
  expect(csv.headers['content-type']).toMatch(/^text\/csv/);
  expect(csv.text.split('\n')[0]).toBe('row,column,code,message');
  expect(csv.text).toMatch(/^43,balance_total,invalid_amount,/m);
  expect(await debtByAccount(t.tenant.tenantId, 'ACC-000042')).toBeUndefined();

  // Row 2 of the file: ACC-000001,1822.54 = 1785.37 + 12.17 + 25.00.
  const row = await debtByAccount(t.tenant.tenantId, 'ACC-000001');
  const debt = (await t.api.get(`/debts/${row.id}?expand[]=customer&expand[]=line_items`).expect(200)).body;
  expect(debt).toMatchObject({
    status: { value: 'prepared', whodunnit: t.tenant.clientId },
    currency: 'GBP',
    organisation: organisationId,
    tags: ['priority-services'],
  });
  expect(debt.summary).toMatchObject({
    amount_total: 182254,
    amount_remaining: 182254,
    breakdown: expect.objectContaining({ principal: 178537, interest: 1217, fees: 2500 }),
  });
  expect(debt.metadata).toMatchObject({ branch: 'Lower Lakin', last_payment_date: '2025-07-03', default_date: '2025-05-08' });
  expect(debt.customer).toMatchObject({
    kind: 'individual',
    first_name: 'Garfield',
    last_name: 'Beier-Sanford',
    full_name: 'Garfield Beier-Sanford',
    date_of_birth: '2004-10-28',
  });
  const details = Object.fromEntries(debt.customer.contact_details.map((d: { type: string; value: unknown }) => [d.type, d.value]));
  expect(details).toEqual({
    email: 'garfield.beiersanford72@spirited-bourgeoisie.me.uk',
    mobile_number: '+447400511278',
    address: { line_1: '1 Victoria Place', line_2: null, city: 'Long Rempel', county: 'Northamptonshire', postal_code: 'RH8 2JQ', country: 'GB' },
  });
  // The events the API's calls record, in their order.
  expect(await eventTypesFor(t.tenant.tenantId, row.id)).toEqual(['debt.created', 'debt.prepared']);
  const counts = await eventCounts(t.tenant.tenantId);
  expect(counts).toMatchObject({ 'customer.created': 299, 'debt.created': 299, 'debt.prepared': 299, 'import.completed': 1 });
  expect(counts['line_item.created']).toBeGreaterThanOrEqual(299);
  expect(counts['import.failed']).toBeUndefined();
}, 1_000_000);

test('the transaction, arrangement and closure samples: payments, line items, external plans and closure codes', async () => {
  for (const type of ['transaction', 'arrangement', 'closure']) {
    const res = await upload(t.api, type, sample(type)).expect(201);
    const done = await finished(t.api, res.body.id);
    expect({ type, ...done }).toMatchObject({ type, status: 'completed', rows_failed: 0 });
    expect(done.rows_succeeded).toBe(done.rows_total);
  }
  const status = async (account: string) => (await debtByAccount(t.tenant.tenantId, account)) as Record<string, any>;
  // Transactions: a payment counted as paid money; a fee as a line item.
  const payments = await testDb()('payments').where({ tenant_id: t.tenant.tenantId }).select('amount', 'status', 'transaction_ref');
  expect(payments.length).toBeGreaterThan(10);
  expect(payments.every((p) => p.status === 'succeeded' && Number(p.amount) > 0 && /^TX-/.test(p.transaction_ref))).toBe(true);
  // Arrangements: an external plan, the debt paying.
  const arranged = await status('ACC-000101');
  expect(arranged.status).toBe('paying');
  const plan = await testDb()('payment_plans').where({ debt_id: arranged.id }).first();
  expect(plan.metadata).toMatchObject({ external: 'true' });
  // Closures: ACC-000201 RTC → returned; 203 BK → returned with the insolvency; 212 SET → settled; 213 DISP → disputed; 214 HOLD → paused until its date.
  expect(await status('ACC-000201')).toMatchObject({ status: 'returned', status_reason: 'Return at client request' });
  expect(await status('ACC-000203')).toMatchObject({
    status: 'returned',
    status_context: expect.stringMatching(/^insolvency: BK \(Bankruptcy order or sequestration \(Scotland\)\)/),
  });
  expect((await status('ACC-000212')).status).toBe('settled');
  expect((await status('ACC-000213')).status).toBe('disputed');
  const held = await status('ACC-000214');
  expect(held.status).toBe('paused');
  expect(held.pause_end_at.toISOString()).toMatch(/^2031-\d\d-\d\dT00:00:00\.000Z$/);
}, 1_000_000);

test('PIF closes a cleared debt as paid and refuses one that still owes; an arrangement with is_cancelled cancels the plan', async () => {
  const account = 'ACC-000005';
  const debt = await debtByAccount(t.tenant.tenantId, account);
  const owed = Number(debt.amount_total) - Number(debt.amount_paid);
  const first = await upload(t.api, 'closure', csvOf(['account_number', 'reason'], [[account, 'PIF']])).expect(201);
  expect(await finished(t.api, first.body.id)).toMatchObject({ rows_failed: 1 });
  expect((await t.api.get(`/imports/${first.body.id}/errors`).expect(200)).body.data[0]).toMatchObject({
    row: 2,
    column: 'reason',
    code: 'balance_not_cleared',
  });
  const pay = csvOf(
    ['account_number', 'transaction_at', 'amount', 'transaction_type', 'transaction_ref'],
    [[account, '2026-11-20T10:00:00Z', `-${Math.trunc(owed / 100)}.${String(owed % 100).padStart(2, '0')}`, 'Payment', 'TX-FULL']],
  );
  expect(await finished(t.api, (await upload(t.api, 'transaction', pay).expect(201)).body.id)).toMatchObject({ rows_succeeded: 1 });
  // The full payment already paid it (as POST /payments would); PIF on a paid debt is then refused by the machine.
  expect((await debtByAccount(t.tenant.tenantId, account)).status).toBe('paid');

  const cancel = csvOf(
    ['account_number', 'amount', 'frequency', 'first_payment_date', 'is_cancelled'],
    [['ACC-000102', '10.00', 'Monthly', '2031-01-01', 'True']],
  );
  expect(await finished(t.api, (await upload(t.api, 'arrangement', cancel).expect(201)).body.id)).toMatchObject({ rows_succeeded: 1 });
  const debt102 = await debtByAccount(t.tenant.tenantId, 'ACC-000102');
  expect(debt102.status).toBe('resumed');
  expect((await testDb()('payment_plans').where({ debt_id: debt102.id }).first()).status).toBe('canceled');
});

test('the command line: import-file uploads a file, draws the progress to the end, prints the import; a refused file exits 1', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'imports-cli-'));
  const good = join(dir, 'closure.csv');
  writeFileSync(good, csvOf(['account_number', 'reason'], [['ACC-000006', 'RTC']]));
  const ok = await runScript('tools/dist/import-file.js', ['--type', 'closure', '--file', good, '--api', API_URL, '--token', t.token, '--interval', '0.2']);
  expect(ok.code).toBe(0);
  expect(JSON.parse(ok.stdout)).toMatchObject({ object: 'import', status: 'completed', rows_succeeded: 1 });
  expect(ok.stderr).toMatch(/\[#{30}\] 1\/1 rows, 1 ok, 0 failed \(100%\) completed/);
  expect((await debtByAccount(t.tenant.tenantId, 'ACC-000006')).status).toBe('returned');
  const bad = join(dir, 'bad.csv');
  writeFileSync(bad, 'no,such,columns\n1,2,3\n');
  const refused = await runScript('tools/dist/import-file.js', ['--type', 'closure', '--file', bad, '--api', API_URL, '--token', t.token]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('refused: header_mismatch');
});
