/**
 * Fixtures of the payout tests (docs/api.md section 14): a tenant with an organisation whose fee
 * is set, succeeded payments made through the public API, and an operator acting for the tenant.
 */
import { apiAs, newOperator, operatorAs, seedParties, signedInTenant, testDb, tokenFor } from '../support/harness.js';
import { createDebt, type Parties } from '../support/debts.js';

type Api = ReturnType<typeof apiAs>;

/** A tenant, its parties (organisation with `payouts` settings), and an operator acting for it. */
export async function payoutTenant(payouts: Record<string, unknown> = { fee_basis_points: 250, fee_minimum: 20 }) {
  const t = await signedInTenant();
  const parties = await seedParties(t.api);
  await t.api.patch(`/organisations/${parties.organisationId}`, { configurations: { payouts } }).expect(200);
  const operator = await newOperator();
  const ops = operatorAs(await tokenFor(operator), t.tenant.tenantId);
  return { ...t, parties, ops, operatorId: operator.clientId };
}

/** A prepared debt of 1,000,000 (GBP unless given; `extra` fields of its create body) whose payments of `amounts` all succeeded; returns the debt and payment ids. */
export async function paidDebt(api: Api, parties: Parties, amounts: number[], currency = 'GBP', extra: Record<string, unknown> = {}) {
  const debt = await createDebt(api, parties, { currency, breakdown: { principal: 1_000_000 }, ...extra });
  await api.post(`/debts/${debt.id}/ready`).expect(200);
  const payments: string[] = [];
  for (const amount of amounts) payments.push((await api.post(`/debts/${debt.id}/payments`, { amount, currency }).expect(201)).body.id);
  return { debtId: debt.id as string, payments };
}

/** Runs the organisation's payouts now as an operator; returns the ids of the payouts made. */
export async function runNow(ops: ReturnType<typeof operatorAs>, organisationId: string): Promise<string[]> {
  return (await ops.post('/operator/payouts/run', { organisation_id: organisationId }).expect(200)).body.payouts;
}

/** The rows of a table for `tenantId`, to show nothing changed. */
export const tenantRowsOf = (table: string, tenantId: string) => testDb()(table).where({ tenant_id: tenantId }).orderBy('id');
