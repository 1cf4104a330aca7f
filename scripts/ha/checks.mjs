/**
 * The end of a `npm run ha:verify` run: what the database holds against what the clients were
 * told and what the receiver got. Read on the final primary (through HAProxy), and the
 * acknowledged debts once more on every node directly.
 */
import pg from 'pg';
import { waitFor } from './proc.mjs';

/** Event types each unit of work makes, once each: the API's writes, then the worker's resume. */
const UNIT_EVENTS = ['debt.created', 'debt.prepared', 'payment.created', 'debt.paused', 'debt.resumed'];

/**
 * Waits until every acknowledged pause has been ended by the worker and every event of the tenant
 * has reached the receiver (or `timeoutMs` passed).
 * @returns seconds it took
 */
export async function drain(db, tenantId, units, receiver, timeoutMs) {
  const started = Date.now();
  const paused = units.filter((u) => u.acked.pause).map((u) => u.debtId);
  const settled = async () => {
    const [{ n: stillPaused }] = await db('debts').whereIn('id', paused).where('status', 'paused').count({ n: '*' });
    if (Number(stillPaused) > 0) return false;
    const ids = await db('events').where({ tenant_id: tenantId }).pluck('id');
    return ids.every((id) => receiver.deliveries.has(id));
  };
  await waitFor('the worker to end every pause and the receiver to get every event', settled, timeoutMs, 1000).catch(() => {});
  return (Date.now() - started) / 1000;
}

/**
 * @typedef {object} Findings what `audit` found (each entry names the write, event or debt)
 * @property {string[]} lost acknowledged writes the database lacks
 * @property {string[]} duplicated writes or events made more than once
 * @property {string[]} undelivered events the receiver never got
 * @property {string[]} phantom deliveries of events not in the database
 * @property {string[]} notResumed timed pauses the worker did not end
 * @property {number} redeliveries deliveries sent again with the same webhook-id
 * @property {number} events the tenant's events
 */

/**
 * Compares the database with the acknowledgements and the deliveries.
 * @returns {Promise<Findings>}
 */
export async function audit(db, tenantId, units, receiver) {
  const debts = await db('debts').where({ tenant_id: tenantId }).select('id', 'status', db.raw(`metadata->>'ha_op' AS op`));
  const payments = await db('payments').where({ tenant_id: tenantId }).select('id', 'debt_id', db.raw(`metadata->>'ha_op' AS op`));
  const events = await db('events')
    .where({ tenant_id: tenantId })
    .select('id', 'type', db.raw(`data->'object'->>'id' AS object_id`), db.raw(`data->'object'->'status'->>'whodunnit' AS whodunnit`));
  const byId = new Map(debts.map((d) => [d.id, d]));
  const paymentIds = new Set(payments.map((p) => p.id));
  const eventsOf = new Map();
  for (const e of events) eventsOf.set(`${e.type} ${e.object_id}`, (eventsOf.get(`${e.type} ${e.object_id}`) ?? 0) + 1);
  // The worker's move to `resumed`, by its event: the engine takes a resumed debt in at once
  // (docs/api.md section 12), so the debt's own status has usually moved on by the audit.
  const resumedBySystem = new Set(events.filter((e) => e.type === 'debt.resumed' && e.whodunnit === 'system').map((e) => e.object_id));

  const lost = [];
  const duplicated = [];
  const notResumed = [];
  for (const u of units) {
    if (u.acked.debt && !byId.has(u.debtId)) lost.push(`debt ${u.debtId} (${u.op})`);
    if (u.acked.ready && byId.get(u.debtId)?.status === 'initializing') lost.push(`ready of ${u.debtId}`);
    if (u.acked.pay && !paymentIds.has(u.paymentId)) lost.push(`payment ${u.paymentId} (${u.op})`);
    if (u.acked.pause && !eventsOf.get(`debt.paused ${u.debtId}`)) lost.push(`pause of ${u.debtId}`);
    if (u.acked.pause && (!resumedBySystem.has(u.debtId) || byId.get(u.debtId)?.status === 'paused')) {
      notResumed.push(`${u.debtId}: ${byId.get(u.debtId)?.status}`);
    }
    for (const type of UNIT_EVENTS) {
      const object = type.startsWith('payment.') ? u.paymentId : u.debtId;
      if ((eventsOf.get(`${type} ${object}`) ?? 0) > 1) duplicated.push(`${eventsOf.get(`${type} ${object}`)} × ${type} of ${object}`);
    }
  }
  const count = (rows) => rows.reduce((m, r) => m.set(r.op, (m.get(r.op) ?? 0) + 1), new Map());
  for (const [op, n] of count(debts)) if (op && n > 1) duplicated.push(`${n} debts of ${op}`);
  for (const [op, n] of count(payments)) if (op && n > 1) duplicated.push(`${n} payments of ${op}`);
  // A write made by a request the client never saw answered would be a unit the client does not know.
  const known = new Set(units.map((u) => u.op));
  for (const d of debts) if (d.op && !known.has(d.op)) duplicated.push(`debt ${d.id} of unknown unit ${d.op}`);

  const eventIds = new Set(events.map((e) => e.id));
  const undelivered = events.filter((e) => !receiver.deliveries.has(e.id)).map((e) => `${e.type} ${e.id}`);
  const phantom = [...receiver.deliveries.keys()].filter((id) => !eventIds.has(id));
  const redeliveries = [...receiver.deliveries.values()].reduce((n, d) => n + d.count - 1, 0);
  return { lost, duplicated, undelivered, phantom, notResumed, redeliveries, events: events.length };
}

/**
 * Counts the acknowledged debts on each node, read directly (replicas replay what they flushed
 * shortly after; waits up to 15 s for that).
 * @returns {Promise<{ node: string, found: number }[]>} with `found` of `debtIds.length`
 */
export async function onEveryNode(nodes, password, debtIds) {
  const out = [];
  for (const n of nodes) {
    const client = new pg.Client({ host: n.ip, port: 5432, database: 'dms', user: 'dms', password });
    await client.connect();
    try {
      const found = await waitFor(
        `node ${n.name} to replay every acknowledged debt`,
        async () => {
          const { rows } = await client.query('SELECT count(*)::int AS n FROM debts WHERE id = ANY($1)', [debtIds]);
          return rows[0].n === debtIds.length ? rows[0].n : undefined;
        },
        15_000,
        500,
      ).catch(async () => (await client.query('SELECT count(*)::int AS n FROM debts WHERE id = ANY($1)', [debtIds])).rows[0].n);
      out.push({ node: n.name, found });
    } finally {
      await client.end();
    }
  }
  return out;
}
