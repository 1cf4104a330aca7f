/**
 * The benchmark's data set, bulk-loaded with set-based SQL: two tenants, each with organisations,
 * customers and `debtsPerTenant` debts. The two tenants' debts are interleaved in insertion order
 * (odd and even `seq`), so every heap page holds rows of both and tenant isolation has to come
 * from the indexes, not from physical separation.
 *
 * Shortcuts taken for load speed, all visible here:
 * - Identifiers have the production shape (`deb_` + 24 base62 characters) but are derived from
 *   SHA-256 of a counter instead of the CSPRNG, so a run is reproducible.
 * - During the load the per-row counter triggers of organisations, customers and debts are
 *   disabled and the secondary indexes of debts are dropped and rebuilt afterwards with their
 *   original definitions; the list counters are then set from the loaded rows, so
 *   `X-Total-Count` is exact. CHECK constraints stay on. When the
 *   benchmark connects as a superuser, the per-row foreign-key triggers are skipped too
 *   (`session_replication_role = replica`) and every reference is checked afterwards in one query.
 * - Two connections insert chunks at once (one per core).
 * - Payments: one succeeded payment of the paid amount for about one debt in ten (`loadPayments`),
 *   inserted in one set-based statement with their counter triggers off, counters set afterwards.
 * - The tables are VACUUM ANALYZEd, as autovacuum would do after such a load.
 */
import type { Knex } from '@dms/db';
import { log } from './log.js';
import type { BenchTenant, Stack } from './stack.js';

/** Statuses and their share of the loaded debts (cumulative thresholds of one random draw). */
const STATUS_MIX: Array<[string, number]> = [
  ['initializing', 0.05],
  ['prepared', 0.45],
  ['paused', 0.55],
  ['resumed', 0.65],
  ['disputed', 0.7],
  ['settled', 0.8],
  ['paid', 0.95],
  ['withdrawn', 1],
];

/** What was loaded. */
export interface Dataset {
  tenants: [BenchTenant, BenchTenant];
  debtsPerTenant: number;
  organisationsPerTenant: number;
  customersPerTenant: number;
  /** Payments of tenant A (`GET /payments`). */
  paymentsPerTenant: number;
  /** Wall time of the bulk load (debts, rebuilt indexes, counters), seconds. */
  loadSeconds: number;
  /** Size of the debts table with its indexes, MiB. */
  debtsMiB: number;
}

/** SQL expression of a production-shaped id: `prefix_` + 24 base62 characters from `seed`. */
function idExpr(prefix: string, seed: string): string {
  // base64 of SHA-256 is 44 characters of [A-Za-z0-9+/]; the first 24 with + and / mapped to
  // letters are 24 base62 characters (~142 bits, so no collisions at this scale).
  return `'${prefix}_' || translate(left(encode(sha256(convert_to(${seed}, 'UTF8')), 'base64'), 24), '+/', 'Qz')`;
}

const tenantIdx = (g: string) => `(${g}) % 2`;

/** Tables whose list counter the load maintains itself (their counter triggers: 001_core, 055). */
const COUNTED = ['organisations', 'customers', 'debts'];

async function loadParties(trx: Knex.Transaction, tenants: string[], orgs: number, customers: number): Promise<void> {
  await trx.raw(
    `INSERT INTO organisations (id, tenant_id, name, customer_facing_name, created_at, updated_at)
     SELECT ${idExpr('org', `'bench-org-' || ${tenantIdx('g')} || '-' || g / 2`)}, (?::text[])[${tenantIdx('g')} + 1],
            'Organisation ' || g / 2, 'Creditor ' || g / 2, now() - interval '400 days', now() - interval '400 days'
     FROM generate_series(0, ? - 1) AS g`,
    [tenants, orgs * 2],
  );
  await trx.raw(
    `INSERT INTO customers (id, tenant_id, kind, full_name, first_name, last_name, created_at, updated_at)
     SELECT ${idExpr('cus', `'bench-cus-' || ${tenantIdx('g')} || '-' || g / 2`)}, (?::text[])[${tenantIdx('g')} + 1],
            'individual', 'Customer ' || g / 2, 'Customer', (g / 2)::text,
            now() - interval '300 days', now() - interval '300 days'
     FROM generate_series(0, ? - 1) AS g`,
    [tenants, customers * 2],
  );
  // One primary e-mail contact detail per customer (docs/api.md section 10); its counter trigger
  // bumps one row per customer, so it stays on.
  await trx.raw(
    `INSERT INTO customer_contact_details (id, tenant_id, customer_id, type, value, "primary", created_at, updated_at)
     SELECT ${idExpr('cd', `'bench-cd-' || c.id`)}, c.tenant_id, c.id, 'email', 'customer' || c.last_name || '@example.com', true, c.created_at, c.created_at
     FROM customers c WHERE c.tenant_id = ANY(?::text[])`,
    [tenants],
  );
}

/**
 * Inserts the debts of rows `from` ≤ g < `to` of the interleaved sequence (g even: tenant A, odd: B).
 * Foreign-key and counter triggers are skipped when the session may (superuser: session_replication_role
 * = replica); the references are checked afterwards in one set-based query (`checkReferences`).
 */
async function loadDebtChunk(trx: Knex.Transaction, tenants: string[], n: number, orgs: number, customers: number, from: number, to: number): Promise<void> {
  const status = `CASE ${STATUS_MIX.map(([s, t]) => `WHEN r1 < ${t} THEN '${s}'`).join(' ')} END`;
  await trx.raw(`SELECT set_config('session_replication_role', 'replica', true) WHERE (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)`);
  await trx.raw(`SET LOCAL synchronous_commit = off`);
  // Deterministic draws per chunk: the same data set on every run.
  await trx.raw('SELECT setseed(?)', [from / (2 * n + 1)]);
  await trx.raw(
    `INSERT INTO debts (id, tenant_id, customer_id, organisation_id, account_number, kind, currency, start_at, tags, metadata,
                        status, status_updated_at, amount_principal, amount_interest, amount_fees, amount_paid, created_at, updated_at)
     SELECT id, tenant_id, customer_id, organisation_id, account_number, kind, currency, created_at - interval '30 days', tags, metadata,
            status, created_at, principal, interest, fees,
            CASE WHEN status = 'paid' THEN principal + interest + fees
                 WHEN status IN ('paused', 'resumed', 'disputed') THEN (principal * 3) / 10
                 ELSE 0 END,
            created_at, created_at
     FROM (
       SELECT ${idExpr('deb', `'bench-deb-' || g`)} AS id,
              (?::text[])[${tenantIdx('g')} + 1] AS tenant_id,
              ${idExpr('cus', `'bench-cus-' || ${tenantIdx('g')} || '-' || ((g / 2)::bigint * 7919) % ?`)} AS customer_id,
              ${idExpr('org', `'bench-org-' || ${tenantIdx('g')} || '-' || (g / 2) % ?`)} AS organisation_id,
              'ACC' || lpad((g / 2)::text, 10, '0') AS account_number,
              (ARRAY['consumer_loan','credit_card','overdraft','utility_bill','telecom_bill','rent','other'])[(g / 2) % 7 + 1] AS kind,
              (ARRAY['GBP','GBP','GBP','GBP','GBP','GBP','EUR','EUR','EUR','USD'])[(g / 2) % 10 + 1] AS currency,
              ARRAY['batch-' || (g / 2) % 50] AS tags,
              jsonb_build_object('external_ref', 'ext-' || g / 2) AS metadata,
              ${status} AS status,
              500 + floor(r2 * 200000)::bigint AS principal,
              floor(r2 * 20000)::bigint AS interest,
              CASE WHEN g % 8 < 2 THEN 1500 ELSE 0 END AS fees,
              now() - make_interval(secs => (? - g)) AS created_at
       FROM (SELECT g, random() AS r1, random() AS r2 FROM generate_series(?::int, ?::int - 1) AS g) AS draws
     ) AS d`,
    [tenants, customers, orgs, 2 * n, from, to],
  );
}

/** Rows per insert statement: small enough to report progress, large enough to stay set-based. */
const CHUNK_ROWS = 250_000;

/**
 * Inserts all `2n` debts in chunks on two connections at once (one per core): chunks are in `g`
 * order per connection, so both tenants stay interleaved row by row on every heap page.
 */
async function loadDebts(db: Knex, tenants: string[], n: number, orgs: number, customers: number): Promise<void> {
  const chunks: Array<[number, number]> = [];
  for (let from = 0; from < 2 * n; from += CHUNK_ROWS) chunks.push([from, Math.min(2 * n, from + CHUNK_ROWS)]);
  let done = 0;
  const worker = async () => {
    for (let chunk = chunks.shift(); chunk; chunk = chunks.shift()) {
      const [from, to] = chunk;
      await db.transaction((trx) => loadDebtChunk(trx, tenants, n, orgs, customers, from, to));
      done += to - from;
      log(`data set: ${done.toLocaleString('en-GB')} of ${(2 * n).toLocaleString('en-GB')} debts inserted`);
    }
  };
  await Promise.all([worker(), worker()]);
}

/**
 * Checks every debt's tenant, customer and organisation reference in one set-based query (the
 * per-row foreign-key triggers may have been skipped during the load).
 * @throws when any reference dangles
 */
async function checkReferences(db: Knex): Promise<void> {
  const { rows } = await db.raw(
    `SELECT count(*) AS n FROM debts d
     WHERE NOT EXISTS (SELECT 1 FROM customers c WHERE c.id = d.customer_id AND c.tenant_id = d.tenant_id)
        OR NOT EXISTS (SELECT 1 FROM organisations o WHERE o.id = d.organisation_id AND o.tenant_id = d.tenant_id)
        OR NOT EXISTS (SELECT 1 FROM tenants t WHERE t.id = d.tenant_id)`,
  );
  if (Number(rows[0].n) !== 0) throw new Error(`${rows[0].n} debts reference a missing tenant, customer or organisation`);
}

/** Counter triggers of payments: a debt's payments list, and the tenant's (`payments_all`). */
export const PAYMENT_COUNTERS = ['payments_count', 'payments_count_payments_all'];

/**
 * One succeeded payment of the debt's whole paid amount for every fourth debt of each tenant (by its
 * account number, which counts the tenant's debts) that has
 * `amount_paid > 0` (about one debt in ten), in debt order, so payments of both tenants interleave
 * on the heap as debts do. The list counters are set from the rows afterwards (as for debts).
 * @returns tenant id → payments inserted
 */
async function loadPayments(db: Knex): Promise<Map<string, number>> {
  await db.transaction(async (trx) => {
    for (const trigger of PAYMENT_COUNTERS) await trx.raw('ALTER TABLE payments DISABLE TRIGGER ??', [trigger]);
    await trx.raw(`SELECT set_config('session_replication_role', 'replica', true) WHERE (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)`);
    await trx.raw(
      `INSERT INTO payments (id, tenant_id, debt_id, amount, currency, status, payment_provider, transaction_at, transaction_ref, metadata, created_at, updated_at)
       SELECT ${idExpr('pay', `'bench-pay-' || d.id`)}, d.tenant_id, d.id, d.amount_paid, d.currency, 'succeeded', 'bench',
              d.created_at + interval '1 day', 'ref-' || d.account_number, jsonb_build_object('batch', d.tags[1]),
              d.created_at + interval '1 day', d.created_at + interval '1 day'
       FROM debts d WHERE d.amount_paid > 0 AND right(d.account_number, 2)::int % 4 = 0 ORDER BY d.seq`,
    );
    for (const trigger of PAYMENT_COUNTERS) await trx.raw('ALTER TABLE payments ENABLE TRIGGER ??', [trigger]);
    await trx.raw(
      `INSERT INTO list_counters (tenant_id, list, parent_id, shard, count)
       SELECT tenant_id, 'payments_all', '', 0, count(*) FROM payments GROUP BY tenant_id
       UNION ALL
       SELECT tenant_id, 'payments', debt_id, 0, count(*) FROM payments GROUP BY tenant_id, debt_id
       ON CONFLICT (tenant_id, list, parent_id, shard) DO UPDATE SET count = list_counters.count + EXCLUDED.count`,
    );
  });
  const { rows } = await db.raw(`SELECT tenant_id, count(*) AS n FROM payments GROUP BY tenant_id`);
  return new Map((rows as Array<{ tenant_id: string; n: string }>).map((r) => [r.tenant_id, Number(r.n)]));
}

/**
 * Loads the data set into the stack's database.
 * @param debtsPerTenant debts for each of the two tenants
 */
export async function loadDataset(stack: Stack, debtsPerTenant: number): Promise<Dataset> {
  const started = Date.now();
  const tenants: [BenchTenant, BenchTenant] = [await stack.newTenant('Bench Lender A'), await stack.newTenant('Bench Lender B')];
  const ids = tenants.map((t) => t.tenantId);
  const orgs = 20;
  const customers = Math.max(100, Math.min(50_000, Math.floor(debtsPerTenant / 20)));
  const db = stack.db;
  // The benchmark database is recreated per run, so the load may leave the schema half-built on failure.
  const indexes = await db.transaction(async (trx) => {
    // Row triggers that bump one counter row per insert would update that row once per loaded
    // row in one transaction (a version chain that grows with every update): off during the load,
    // and the counters are set from the loaded rows below.
    // USER: the row trigger `<table>_count` and, for customers and debts, the insert one of migration 055.
    for (const table of COUNTED) await trx.raw('ALTER TABLE ?? DISABLE TRIGGER USER', [table]);
    await loadParties(trx, ids, orgs, customers);
    const { rows } = await trx.raw(
      `SELECT i.indexname, i.indexdef FROM pg_indexes i
       WHERE i.tablename = 'debts' AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
    );
    for (const { indexname } of rows as Array<{ indexname: string }>) await trx.raw('DROP INDEX ??', [indexname]);
    return rows as Array<{ indexdef: string }>;
  });
  await loadDebts(db, ids, debtsPerTenant, orgs, customers);
  log(`data set: rebuilding ${indexes.length} indexes`);
  // Two builds at a time (CREATE INDEX takes a SHARE lock, which does not conflict with itself).
  const pending = [...indexes];
  const build = async () => {
    for (let next = pending.shift(); next; next = pending.shift()) {
      const { indexdef } = next;
      await db.transaction(async (trx) => {
        await trx.raw(`SET LOCAL maintenance_work_mem = '256MB'`);
        await trx.raw(indexdef);
      });
    }
  };
  await Promise.all([build(), build()]);
  log('data set: counters, reference check, VACUUM ANALYZE');
  await db.transaction(async (trx) => {
    for (const table of COUNTED) {
      await trx.raw('ALTER TABLE ?? ENABLE TRIGGER USER', [table]);
      // The same membership rule as the triggers of migration 001_core.
      const visible = table === 'customers' ? 'deleted_at IS NULL' : table === 'debts' ? `status <> 'deleted'` : 'true';
      // A list's total is the sum of its counter shards (migration 008): the load's rows go to shard 0.
      await trx.raw(
        `INSERT INTO list_counters (tenant_id, list, parent_id, shard, count)
         SELECT tenant_id, ?, '', 0, count(*) FROM ?? WHERE ${visible} GROUP BY tenant_id
         ON CONFLICT (tenant_id, list, parent_id, shard) DO UPDATE SET count = list_counters.count + EXCLUDED.count`,
        [table, table],
      );
    }
  });
  await checkReferences(db);
  log('data set: payments');
  const payments = await loadPayments(db);
  await db.raw('VACUUM (ANALYZE) organisations, customers, debts, payments, list_counters');
  const loadSeconds = (Date.now() - started) / 1000;
  const { rows } = await db.raw(`SELECT pg_total_relation_size('debts') AS bytes`);
  return {
    tenants,
    debtsPerTenant,
    organisationsPerTenant: orgs,
    customersPerTenant: customers,
    paymentsPerTenant: payments.get(ids[0]!) ?? 0,
    loadSeconds,
    debtsMiB: Number(rows[0].bytes) / 2 ** 20,
  };
}

/**
 * The id of the `position`-th debt (1-based) of `tenantId`'s list in list order (newest first).
 * Uses OFFSET once, at setup, to find the cursor the deep-page runs start from.
 */
export async function debtAtPosition(db: Knex, tenantId: string, position: number): Promise<string> {
  const { rows } = await db.raw(`SELECT id FROM debts WHERE tenant_id = ? AND status <> 'deleted' ORDER BY seq DESC OFFSET ? LIMIT 1`, [
    tenantId,
    position - 1,
  ]);
  if (!rows[0]) throw new Error(`tenant has fewer than ${position} debts`);
  return rows[0].id as string;
}
