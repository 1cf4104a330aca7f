/**
 * The cost of `expand[]` on the money objects (docs/api.md section 10): a page is expanded with
 * one query per expanded relation, whatever its size, never one per object; a relation whose
 * keys are all null (payments without a plan) costs none.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { Knex } from 'knex';
import { closeHarness, signedInTenant, testDb } from '../support/harness.js';
import { createDebt } from '../support/debts.js';
import { expandObjects, type ExpansionRegistry } from '../../services/api/src/operations/expansion.js';
import { DEBT_EXPANSIONS } from '../../services/api/src/resources/debts/expansion.js';
// Declares the customer's expansions, which `debt.customer` reaches by name.
import '../../services/api/src/resources/customers/expansion.js';
import { INVOICE_EXPANSIONS } from '../../services/api/src/resources/invoices/expansion.js';
import { PAYMENT_EXPANSIONS } from '../../services/api/src/resources/payments/expansion.js';
import { PAYMENT_PLAN_EXPANSIONS } from '../../services/api/src/resources/payment-plans/expansion.js';
import { toDebt } from '../../libs/domain/src/debts/store.js';
import { toInvoices } from '../../libs/domain/src/invoices/store.js';
import { toPayment } from '../../libs/domain/src/payments/store.js';
import { toPaymentPlan } from '../../libs/domain/src/payment-plans/store.js';

afterAll(closeHarness);

const PAGE = 12;
let tenantId: string;
let db: Knex;
const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  const { api, tenant } = await signedInTenant();
  tenantId = tenant.tenantId;
  db = testDb();
  const org = (await api.post('/organisations', { name: 'Org' }).expect(201)).body.id;
  for (let i = 0; i < PAGE; i++) {
    const cus = (await api.post('/customers', { full_name: `C ${i}` }).expect(201)).body.id;
    const debt = (await createDebt(api, { customerId: cus, organisationId: org })).id;
    await api.post(`/debts/${debt}/ready`).expect(200);
    await api.post(`/debts/${debt}/payments`, { amount: 100, currency: 'GBP' }).expect(201);
    await api.post(`/debts/${debt}/invoices`, { reference: `INV-${i}`, line_items: [{ kind: 'fee', amount: 50 }] }).expect(201);
    await api.post(`/debts/${debt}/payment_plans`, { frequency: 'weekly', start_on: tomorrow, instalment_count: 2 }).expect(201);
    await api.post(`/debts/${debt}/payments`, { amount: 200, currency: 'GBP' }).expect(201);
  }
});

/** Expands `objects` while counting the queries sent. */
async function counted<Obj extends object>(
  objects: NoInfer<Obj>[],
  expand: string[],
  registry: ExpansionRegistry<Obj>,
): Promise<{ expanded: Obj[]; queries: string[] }> {
  const queries: string[] = [];
  const count = (q: { sql: string }) => queries.push(q.sql);
  db.on('query', count);
  try {
    return { expanded: await expandObjects(db, tenantId, objects, expand, registry), queries };
  } finally {
    db.off('query', count);
  }
}

const rows = (table: string) => db(table).where({ tenant_id: tenantId }).orderBy('seq', 'desc');
type Lists = Record<string, unknown[]>;

test('a page of debts: line_items, invoices and payment_plans cost one query each', async () => {
  const debts = (await rows('debts')).map((r) => toDebt(r));
  const { expanded, queries } = await counted(debts, ['line_items', 'invoices', 'payment_plans'], DEBT_EXPANSIONS);
  expect(expanded).toHaveLength(PAGE);
  for (const d of expanded as unknown as Lists[]) {
    expect([d.line_items!.length, d.invoices!.length, d.payment_plans!.length]).toEqual([2, 1, 1]);
    expect((d.invoices![0] as { line_items: string[] }).line_items).toEqual([(d.line_items![0] as { id: string }).id]);
  }
  expect(queries).toHaveLength(3);
  expect(queries.every((sql) => sql.includes(' in ('))).toBe(true);
});

test('a page of payments: payment_plan and debt cost one query each; all-null plans cost none', async () => {
  const payments = (await rows('payments')).map(toPayment);
  const { expanded, queries } = await counted(payments, ['payment_plan', 'debt'], PAYMENT_EXPANSIONS);
  expect(expanded.filter((p) => p.payment_plan === null)).toHaveLength(PAGE);
  expect(expanded.filter((p) => (p.payment_plan as { object?: string } | null)?.object === 'payment_plan')).toHaveLength(PAGE);
  expect(queries).toHaveLength(2);
  const planless = payments.filter((p) => p.payment_plan === null);
  const none = await counted(planless, ['payment_plan'], PAYMENT_EXPANSIONS);
  expect(none.expanded.every((p) => p.payment_plan === null)).toBe(true);
  expect(none.queries).toHaveLength(0);
});

test('a page of invoices: line_items and debt cost one query each', async () => {
  const invoices = await toInvoices(db, tenantId, await rows('invoices'));
  const { expanded, queries } = await counted(invoices, ['line_items', 'debt'], INVOICE_EXPANSIONS);
  for (const inv of expanded) {
    expect(inv.line_items).toEqual([expect.objectContaining({ object: 'line_item', invoice: inv.id, amount: 50 })]);
    expect((inv.debt as { object: string }).object).toBe('debt');
  }
  expect(new Set(expanded.map((i) => (i.debt as { id: string }).id)).size).toBe(PAGE);
  expect(queries).toHaveLength(2);
});

test('a page of payment plans: debt and payments cost one query each', async () => {
  const plans = (await rows('payment_plans')).map((r) => toPaymentPlan(r));
  const { expanded, queries } = await counted(plans, ['debt', 'payments'], PAYMENT_PLAN_EXPANSIONS);
  for (const plan of expanded) {
    expect(plan.payments).toEqual([expect.objectContaining({ amount: 200, payment_plan: plan.id })]);
    expect((plan.debt as { id: string }).id).toBe(plan.payments![0]!.debt);
  }
  expect(queries).toHaveLength(2);
});

test('two levels: a page of payments with debt.customer, and debts with payments.payment_plan, cost one query per relation and level', async () => {
  const payments = (await rows('payments')).map(toPayment);
  const { expanded, queries } = await counted(payments, ['debt.customer', 'debt', 'payment_plan'], PAYMENT_EXPANSIONS);
  for (const p of expanded as unknown as Array<{ debt: { customer: { object: string; id: string }; id: string } }>) {
    expect(p.debt.customer.object).toBe('customer');
    expect(p.debt.customer.id).toMatch(/^cus_/);
  }
  expect(queries).toHaveLength(3);

  const debts = (await rows('debts')).map((r) => toDebt(r));
  const deep = await counted(debts, ['payments.payment_plan', 'payments.debt.customer'], DEBT_EXPANSIONS);
  const planned = (deep.expanded as unknown as Lists[]).flatMap((d) => d.payments as Array<{ payment_plan: { object?: string } | null }>);
  expect(planned).toHaveLength(PAGE * 2);
  expect(planned.filter((p) => p.payment_plan?.object === 'payment_plan')).toHaveLength(PAGE);
  // payments, then their plans and their debts, then those debts' customers: 4 queries for the page.
  expect(deep.queries).toHaveLength(4);
  expect(deep.queries.every((sql) => sql.includes(' in ('))).toBe(true);
});
