/**
 * Payout runs (docs/api.md section 14): one organisation with `BENCH_PAYOUT_PAYMENTS` succeeded
 * payments (loaded set-based, spread over debts of 100 payments each) and the balance item each
 * payment's success writes (its fee by the default settings, as libs/domain/src/payouts/ledger.ts computes it),
 * then in the same run:
 * - the reference: one PostgreSQL aggregate over the same payments (count, gross and the platform
 *   fee of every payment, the join to debts included), best of three warm runs;
 * - the payout run itself (`runPayoutsNow` of @dms/domain: one aggregate over the account's items
 *   not yet in a payout, then the payout, account and event), best of two rehearsals rolled back
 *   and the run that commits.
 * The check puts the run beside the aggregate; the target is at most 3×.
 */
import { loadavg } from 'node:os';
import { createOrganisationWithDetails } from '@dms/domain/organisation-contact-details';
import { feeBindings, feeSql, runPayoutsNow } from '@dms/domain/payouts';
import { PAYOUT_DEFAULTS } from '@dms/domain/organisations';
import { log, type BenchContext } from '../context.js';
import { PAYMENT_COUNTERS } from '../dataset.js';
import { fmt, fmtMs, fmtRatio, type ScenarioResult } from '../model.js';

/** Payments per debt of the data set. */
const PER_DEBT = 100;

const ms = (from: bigint) => Number(process.hrtime.bigint() - from) / 1e6;

/** The payouts scenario. */
export async function payoutsScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const { db } = ctx.stack;
  const n = ctx.settings.payoutPayments;
  const tenant = await ctx.stack.newTenant('bench payouts');
  const org = await createOrganisationWithDetails(db, tenant.tenantId, { name: 'Payout bench creditor' });
  const loadStart = process.hrtime.bigint();
  await db.transaction(async (trx) => {
    // The load is set-based but large: no pool time limit for it (the run keeps the pool's), and,
    // as the data set's loader does, no per-row counter triggers (one counter row updated a million
    // times in one transaction); the counters are written once after.
    await trx.raw('SET LOCAL statement_timeout = 0');
    for (const trigger of PAYMENT_COUNTERS) await trx.raw('ALTER TABLE payments DISABLE TRIGGER ??', [trigger]);
    await trx.raw(`INSERT INTO customers (id, tenant_id, kind, full_name) VALUES ('cus_payoutbench0000000000000', ?, 'individual', 'Payout Bench')`, [
      tenant.tenantId,
    ]);
    await trx.raw(
      `INSERT INTO debts (id, tenant_id, customer_id, organisation_id, account_number, currency, status, amount_principal)
       SELECT 'deb_pb' || lpad(g::text, 22, '0'), ?, 'cus_payoutbench0000000000000', ?, 'PB-' || g, 'GBP', 'prepared', 100000000
       FROM generate_series(1, ?) AS g`,
      [tenant.tenantId, org.id, Math.ceil(n / PER_DEBT)],
    );
    await trx.raw(
      `INSERT INTO payments (id, tenant_id, debt_id, amount, currency, status, transaction_at)
       SELECT 'pay_pb' || lpad(g::text, 22, '0'), ?, 'deb_pb' || lpad((1 + (g - 1) / ${PER_DEBT})::text, 22, '0'), 100 + (g::bigint * 7919) % 20000, 'GBP', 'succeeded', now()
       FROM generate_series(1, ?) AS g`,
      [tenant.tenantId, n],
    );
    for (const trigger of PAYMENT_COUNTERS) await trx.raw('ALTER TABLE payments ENABLE TRIGGER ??', [trigger]);
    // What each payment's success wrote with it (payouts/ledger.ts): its item, not yet in a payout.
    await trx.raw(
      `INSERT INTO balance_items (id, tenant_id, organisation_id, currency, type, amount, fee, net, payment_id, debt_id)
       SELECT 'bi_pb' || substr(p.id, 7), p.tenant_id, ?, p.currency, 'payment', p.amount, f.fee, p.amount - f.fee, p.id, p.debt_id
       FROM payments p CROSS JOIN LATERAL (SELECT ${feeSql('p.amount')} AS fee) f
       WHERE p.tenant_id = ? ORDER BY p.id`,
      [org.id, ...feeBindings(PAYOUT_DEFAULTS), tenant.tenantId],
    );
    await trx.raw(
      `INSERT INTO list_counters (tenant_id, list, parent_id, shard, count)
       SELECT tenant_id, 'payments_all', '', 0, count(*) FROM payments WHERE tenant_id = ? GROUP BY tenant_id
       UNION ALL
       SELECT tenant_id, 'payments', debt_id, 0, count(*) FROM payments WHERE tenant_id = ? GROUP BY tenant_id, debt_id`,
      [tenant.tenantId, tenant.tenantId],
    );
  });
  await db.raw('VACUUM ANALYZE payments');
  await db.raw('VACUUM ANALYZE debts');
  await db.raw('VACUUM ANALYZE balance_items');
  log(`payouts: ${fmt(n)} payments loaded in ${(ms(loadStart) / 1000).toFixed(1)} s`);

  const aggregate = `SELECT count(*), sum(p.amount), sum(${feeSql('p.amount')})
    FROM payments p JOIN debts d ON d.id = p.debt_id
    WHERE p.tenant_id = ? AND d.tenant_id = ? AND d.organisation_id = ? AND p.currency = 'GBP' AND p.status IN ('succeeded', 'partially_refunded', 'refunded')`;
  const bindings = [...feeBindings(PAYOUT_DEFAULTS), tenant.tenantId, tenant.tenantId, org.id];
  let aggregateMs = Infinity;
  for (let i = 0; i < 3; i++) {
    const start = process.hrtime.bigint();
    await db.raw(aggregate, bindings);
    aggregateMs = Math.min(aggregateMs, ms(start));
  }
  // Two rehearsals rolled back (the same run, inside a transaction that is then undone), then the
  // run that commits: the figure is the best of the three, as the aggregate's is.
  let runMs = Infinity;
  const rolledBack = new Error('rehearsal rolled back');
  for (let i = 0; i < 2; i++) {
    await db
      .transaction(async (trx) => {
        const start = process.hrtime.bigint();
        await runPayoutsNow(trx, tenant.tenantId, org.id);
        runMs = Math.min(runMs, ms(start));
        throw rolledBack;
      })
      .catch((err: unknown) => {
        if (err !== rolledBack) throw err;
      });
  }
  const runStart = process.hrtime.bigint();
  const [payout] = await runPayoutsNow(db, tenant.tenantId, org.id);
  runMs = Math.min(runMs, ms(runStart));
  if (!payout || payout.item_count !== n) throw new Error(`the payout run took ${payout?.item_count ?? 0} items, expected ${n}`);
  const ratio = runMs / aggregateMs;
  log(`payouts: run ${fmtMs(runMs)}, aggregate ${fmtMs(aggregateMs)} (${fmtRatio(ratio)})`);
  return {
    name: 'payouts',
    title: 'Payouts',
    runs: [],
    checks: [
      {
        what: `payout run over ${fmt(n)} succeeded payments (one organisation)`,
        value: fmtMs(runMs),
        reference: `${fmtMs(aggregateMs)} (one aggregate: count, gross, fees)`,
        ratio: fmtRatio(ratio),
        target: '≤ 3×',
        met: ratio <= 3,
      },
    ],
    notes: [
      `The run reads the ${fmt(n)} balance items its payments' successes wrote (one aggregate over the account's items after its last payout) and writes only the payout, its account and \`payout.created\`, in one transaction; the reference joins the same payments to debts and sums their fees. Load average at the end of the run: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(', ')}.`,
    ],
  };
}
