/**
 * The payout invariant (docs/api.md section 14) as a fast-check property over random sequences of
 * payments (plain and through a payment plan), refunds, fee settings, payout runs, operator moves
 * and failures, all through the public and operator APIs: after a last run, for every organisation
 * and currency, paid out + pending + carried = succeeded payments - refunds - fees to the minor
 * unit, the fees are those the settings in force when each payment succeeded give (an independent
 * model: the balance item is made with the payment), no
 * payment is in two payouts and no refund is counted twice. A second test fires refunds and a
 * payout run in parallel: nothing is lost or doubled. A third holds a run's account lock and shows
 * that a payment and a refund wait for it before it writes events, items or list counters, the order that keeps
 * the two from deadlocking (docs/api.md section 14).
 */
import { afterAll, describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { platformFee } from '../../libs/domain/src/payouts/fees.js';
import { closeHarness, seedParties, testDb } from '../support/harness.js';
import { eventually } from '../support/eventually.js';
import { paidDebt, payoutTenant, runNow } from './support.js';
import { doubleCounted, ledger } from './ledger.js';

afterAll(closeHarness);

type Step =
  | { kind: 'pay'; org: number; currency: 'GBP' | 'EUR'; amount: number; plan: boolean }
  | { kind: 'refund'; pick: number; share: number }
  | { kind: 'fee'; org: number; bps: number; min: number }
  | { kind: 'run'; org: number }
  | { kind: 'move'; pick: number; status: 'in_transit' | 'paid' | 'failed' };

const org = fc.integer({ min: 0, max: 1 });
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('pay' as const),
      org,
      currency: fc.constantFrom('GBP' as const, 'EUR' as const),
      amount: fc.integer({ min: 1, max: 20_000 }),
      plan: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('refund' as const), pick: fc.nat(), share: fc.double({ min: 0, max: 1, noNaN: true }) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('fee' as const), org, bps: fc.integer({ min: 0, max: 2000 }), min: fc.integer({ min: 0, max: 500 }) }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('run' as const), org }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('move' as const),
      pick: fc.nat(),
      status: fc.constantFrom('in_transit' as const, 'paid' as const, 'failed' as const),
    }),
  },
);

/** The payout machine as the model knows it. */
const ALLOWED: Record<string, string[]> = { in_transit: ['pending'], paid: ['pending', 'in_transit'], failed: ['pending', 'in_transit'] };

interface ModelPayment {
  id: string;
  debt: string;
  org: number;
  amount: number;
  refunded: number;
  fee: number;
}

async function playSequence(steps: Step[]): Promise<void> {
  const t = await payoutTenant({ fee_basis_points: 150, fee_minimum: 20 });
  const orgs = [t.parties, await seedParties(t.api)];
  const terms = [
    { fee_basis_points: 150, fee_minimum: 20 },
    { fee_basis_points: 150, fee_minimum: 20 },
  ];
  await t.api.patch(`/organisations/${orgs[1]!.organisationId}`, { configurations: { payouts: terms[1] } }).expect(200);
  const debts = new Map<string, string>();
  const payments: ModelPayment[] = [];
  const payouts: { id: string; status: string }[] = [];

  const debtFor = async (o: number, currency: string, plan: boolean) => {
    const key = `${o} ${currency} ${plan}`;
    if (!debts.has(key)) {
      const { debtId } = await paidDebt(t.api, orgs[o]!, [], currency);
      if (plan)
        await t.api
          .post(`/debts/${debtId}/payment_plans`, { frequency: 'weekly', instalment_count: 4, start_on: new Date().toISOString().slice(0, 10) })
          .expect(201);
      debts.set(key, debtId);
    }
    return debts.get(key)!;
  };
  const run = async (o: number) => {
    for (const id of await runNow(t.ops, orgs[o]!.organisationId)) payouts.push({ id, status: 'pending' });
  };

  for (const s of steps) {
    if (s.kind === 'pay') {
      const debt = await debtFor(s.org, s.currency, s.plan);
      const res = await t.api.post(`/debts/${debt}/payments`, { amount: s.amount, currency: s.currency }).expect(201);
      if (s.plan) expect(res.body.payment_plan).toEqual(expect.stringMatching(/^pp_/));
      payments.push({ id: res.body.id, debt, org: s.org, amount: s.amount, refunded: 0, fee: platformFee(s.amount, terms[s.org]!) });
    } else if (s.kind === 'refund') {
      const open = payments.filter((p) => p.refunded < p.amount);
      if (!open.length) continue;
      const p = open[s.pick % open.length]!;
      const amount = 1 + Math.floor(s.share * (p.amount - p.refunded - 1));
      await t.api.post(`/debts/${p.debt}/payments/${p.id}/refund`, { amount }).expect(200);
      p.refunded += amount;
    } else if (s.kind === 'fee') {
      terms[s.org] = { fee_basis_points: s.bps, fee_minimum: s.min };
      await t.api.patch(`/organisations/${orgs[s.org]!.organisationId}`, { configurations: { payouts: terms[s.org] } }).expect(200);
    } else if (s.kind === 'run') {
      await run(s.org);
    } else {
      if (!payouts.length) continue;
      const p = payouts[s.pick % payouts.length]!;
      const allowed = ALLOWED[s.status]!.includes(p.status);
      const res = await t.ops.post(`/operator/payouts/${p.id}/status`, { status: s.status, reason: 'property test' });
      expect(res.status).toBe(allowed ? 200 : 409);
      if (allowed) p.status = s.status;
    }
  }
  await run(0);
  await run(1);

  const sides = await ledger(t.tenant.tenantId);
  for (const [key, s] of sides) {
    expect({ key, held: s.paidOut + s.pending + s.carried }).toEqual({ key, held: s.collected - s.refunded - s.fees });
  }
  const modelFees = payments.reduce((sum, p) => sum + p.fee, 0);
  expect([...sides.values()].reduce((sum, s) => sum + s.fees, 0)).toBe(modelFees);
  const modelNet = payments.reduce((sum, p) => sum + p.amount - p.refunded - p.fee, 0);
  expect([...sides.values()].reduce((sum, s) => sum + s.paidOut + s.pending + s.carried, 0)).toBe(modelNet);
  expect(await doubleCounted(t.tenant.tenantId)).toEqual({ twice: [], refunds: [] });
}

describe('the payout invariant', () => {
  test('holds over random sequences of payments, refunds, fees, runs and operator moves', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 14 }), (steps) => playSequence(steps)),
      { numRuns: 12 },
    );
  }, 600_000);

  test('refunds racing a payout run: nothing lost, nothing doubled', async () => {
    const t = await payoutTenant({ fee_basis_points: 100, fee_minimum: 10 });
    const { debtId, payments } = await paidDebt(
      t.api,
      t.parties,
      Array.from({ length: 12 }, () => 5000),
    );
    for (let round = 0; round < 3; round++) {
      await Promise.all([
        ...payments.map((id) => t.api.post(`/debts/${debtId}/payments/${id}/refund`, { amount: 400 }).expect(200)),
        runNow(t.ops, t.parties.organisationId),
        runNow(t.ops, t.parties.organisationId),
      ]);
    }
    await runNow(t.ops, t.parties.organisationId);
    const [side] = [...(await ledger(t.tenant.tenantId)).values()].filter((s) => s.collected > 0);
    expect(side).toMatchObject({ collected: 60_000, refunded: 3 * 12 * 400, fees: 12 * 50 });
    expect(side!.paidOut + side!.pending + side!.carried).toBe(60_000 - 14_400 - 600);
    expect(await doubleCounted(t.tenant.tenantId)).toEqual({ twice: [], refunds: [] });
  });

  test('a payment or refund behind a payout run waits for the account before it writes anything a run writes (no deadlock)', async () => {
    const t = await payoutTenant();
    const { debtId, payments } = await paidDebt(t.api, t.parties, [5000]);
    // Another debt of the organisation: the payment must not queue behind the refund's debt lock.
    const other = await paidDebt(t.api, t.parties, []);
    // A run in progress, as a worker holds it: the account's row locked FOR UPDATE in an open transaction.
    const run = await testDb().transaction();
    try {
      await run('payout_accounts').where({ tenant_id: t.tenant.tenantId, organisation_id: t.parties.organisationId }).forUpdate();
      const runPid = (await run.raw('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
      const writes = [
        t.api.post(`/debts/${debtId}/payments/${payments[0]}/refund`, { amount: 400 }).then((r) => r.status),
        t.api.post(`/debts/${other.debtId}/payments`, { amount: 700, currency: 'GBP' }).then((r) => r.status),
      ];
      let waiting: number[] = [];
      await eventually(
        async () => {
          const { rows } = await testDb().raw('SELECT pid FROM pg_stat_activity WHERE ? = ANY(pg_blocking_pids(pid))', [runPid]);
          waiting = rows.map((r: { pid: number }) => r.pid);
          return waiting.length === 2;
        },
        'the refund and the payment wait for the account',
        20_000,
      );
      // The run writes list counters (items, payout, event) after the account: a writer holding one would deadlock with it.
      const held = await testDb().raw(
        "SELECT count(*)::int AS n FROM pg_locks WHERE pid = ANY(?) AND relation IN ('list_counters'::regclass, 'events'::regclass, 'balance_items'::regclass)",
        [waiting],
      );
      expect(held.rows[0].n).toBe(0);
      await run.commit();
      expect(await Promise.all(writes)).toEqual([200, 201]);
    } finally {
      if (!run.isCompleted()) await run.rollback();
    }
  });
});
