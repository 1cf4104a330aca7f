/**
 * A customer's data (docs/api.md section 20): the export of a long history streams with flat
 * memory, and the erasure of a large customer stays quick.
 *
 * - Data: two customers of one tenant, each with a date of birth, an e-mail and `DEBTS` debts made
 *   through the domain functions, then events about them copied in SQL from their own (half
 *   `customer.updated` carrying the names, half `debt.updated`): `SMALL_EVENTS` for the small one,
 *   `LARGE_EVENTS` (ten times as many) for the large one.
 * - Export: `GET /customers/{id}/export` from one API process started for it with `--expose-gc`
 *   and the gc probe (live-memory.ts): a full collection before every sample, so each sample is
 *   what the process still holds. The body is read as it streams (and parsed afterwards, to count
 *   its events). After a warm-up of each, `ROUNDS` rounds of small then large; each size's figure
 *   is its highest growth (peak during the download minus the idle median before it). The check:
 *   the large export's growth within `FLAT_FACTOR` times the small one's, from the same run. An
 *   export that held the document (or its rows) would grow with it: about as many times as the
 *   document is larger.
 * - Erasure: `POST /customers/{id}/erase` of the large customer, timed; ceiling `ERASE_CEILING_MS`.
 */
import { createCustomer } from '@dms/domain/customers';
import { createDebt } from '@dms/domain/debts';
import { createOrganisationWithDetails } from '@dms/domain/organisation-contact-details';
import { log, type BenchContext } from '../context.js';
import { liveGrowth, startProbedApi, PROBE_MS, type ProbedService } from '../live-memory.js';
import { fmt, fmtMs, type Check, type ScenarioResult } from '../model.js';

/** Debts of each customer. */
const DEBTS = 100;
/** Events about the small and the large customer. */
const SMALL_EVENTS = 1_000;
const LARGE_EVENTS = 10_000;
/** Measured rounds (small, then large) after the warm-up. */
const ROUNDS = 2;
/** The large export's live memory growth at most this many times the small one's. */
const FLAT_FACTOR = 2;
/** The erasure's ceiling, ms. */
const ERASE_CEILING_MS = 2_000;

const MiB = 2 ** 20;
const mib = (bytes: number) => `${fmt(bytes / MiB, 1)} MiB`;

/** Creates a customer with `DEBTS` debts and `events` events about it in all; returns its id. */
async function seedPerson(ctx: BenchContext, tenantId: string, organisationId: string, label: string, events: number): Promise<string> {
  const { db } = ctx.stack;
  const customer = await createCustomer(db, tenantId, {
    kind: 'individual',
    first_name: 'Bench',
    last_name: `Person ${label}`,
    date_of_birth: '1970-05-17',
    contact_details: [{ type: 'email', value: `bench.person.${label}@example.org`, primary: true }],
  });
  for (let i = 0; i < DEBTS; i++) {
    await createDebt(db, tenantId, {
      customer_id: customer.id,
      organisation_id: organisationId,
      currency: 'GBP',
      account_number: `PD-${label}-${i}`,
      breakdown: { principal: 50_000 + i, interest: 1_000, fees: 500 },
    });
  }
  const [{ n: made }] = (
    await db.raw(`SELECT count(*)::int AS n FROM events WHERE tenant_id = ? AND (data->'object'->>'id' = ? OR data->'object'->>'customer' = ?)`, [
      tenantId,
      customer.id,
      customer.id,
    ])
  ).rows;
  const copies = Math.max(0, events - Number(made));
  const copy = (type: string, from: string, per: number) =>
    db.raw(
      `INSERT INTO events (id, tenant_id, type, api_version, data)
       SELECT random_base62_id('evt'), e.tenant_id, ?, e.api_version, e.data FROM events e, generate_series(1, ?) AS g(i)
        WHERE e.tenant_id = ? AND e.type = ? AND ${from}`,
      [type, per, tenantId, type.replace('updated', 'created'), customer.id],
    );
  await copy('customer.updated', `e.data->'object'->>'id' = ?`, Math.ceil(copies / 2));
  await copy('debt.updated', `e.data->'object'->>'customer' = ?`, Math.floor(copies / 2 / DEBTS));
  await db.raw('ANALYZE events');
  return customer.id;
}

interface ExportFigures {
  events: number;
  bytes: number;
  /** Highest live memory growth of the probed API process over the rounds, bytes. */
  growth: number;
  samples: number;
  ms: number;
}

/** Downloads the customer's export from the probed API, reading the body as it streams; returns its size and its events. */
async function download(probed: ProbedService, token: string, customerId: string): Promise<{ bytes: number; events: number }> {
  const res = await fetch(`${probed.service.url}/customers/${customerId}/export`, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`GET /customers/<id>/export: ${res.status}`);
  const chunks: Uint8Array[] = [];
  for await (const chunk of res.body!) chunks.push(chunk as Uint8Array);
  const body = Buffer.concat(chunks);
  return { bytes: body.length, events: (JSON.parse(body.toString('utf8')) as { events: unknown[] }).events.length };
}

/** Exports the customer once from the probed API, measuring the process's live memory growth. */
async function measureExport(probed: ProbedService, token: string, customerId: string): Promise<ExportFigures> {
  const m = await liveGrowth(probed, () => download(probed, token, customerId));
  return { ...m.result, growth: m.growth, samples: m.samples, ms: m.ms };
}

/** Of two measures of one export, the one with the higher growth (the steady-state peak). */
const higher = (a: ExportFigures | undefined, b: ExportFigures): ExportFigures => (a && a.growth >= b.growth ? a : b);

/** The personal-data scenario. */
export async function personalDataScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const { stack } = ctx;
  const tenant = await stack.newTenant('Bench Personal Data Tenant');
  const token = await stack.token(tenant);
  const org = await createOrganisationWithDetails(stack.db, tenant.tenantId, { name: 'Bench Personal Data Energy' });
  const small = await seedPerson(ctx, tenant.tenantId, org.id, 'small', SMALL_EVENTS);
  const large = await seedPerson(ctx, tenant.tenantId, org.id, 'large', LARGE_EVENTS);
  const probed = await startProbedApi(stack, 'API export probe (--expose-gc, 1 process)');
  let s: ExportFigures | undefined;
  let l: ExportFigures | undefined;
  try {
    // A first export of each warms the process's code paths and connections; then the rounds.
    for (const id of [small, large]) await measureExport(probed, token, id);
    for (let round = 0; round < ROUNDS; round++) {
      s = higher(s, await measureExport(probed, token, small));
      l = higher(l, await measureExport(probed, token, large));
    }
  } finally {
    await stack.stopExtra();
  }
  const [sm, lg] = [s!, l!];
  log(
    `personal-data: export ${fmt(sm.events)} events ${mib(sm.bytes)} live +${mib(sm.growth)}; ${fmt(lg.events)} events ${mib(lg.bytes)} live +${mib(lg.growth)}`,
  );

  const started = performance.now();
  const erased = await stack.request(token, 'POST', `/customers/${large}/erase`, { reason: 'Bench: Article 17 request' });
  const eraseMs = performance.now() - started;
  if (erased.first_name !== '[erased]') throw new Error('the erasure answered a customer not erased');
  const [{ n: left }] = (
    await stack.db.raw(`SELECT count(*)::int AS n FROM events WHERE tenant_id = ? AND data::text LIKE '%Person large%'`, [tenant.tenantId])
  ).rows;
  log(`personal-data: erased ${fmt(lg.events)} events' customer in ${fmtMs(eraseMs)}; events still naming it: ${left}`);

  const ratio = lg.growth / Math.max(sm.growth, 1);
  const checks: Check[] = [
    {
      what: `Export through the API: live memory growth of the API process (full GC before each sample), ${fmt(lg.events)} events vs ${fmt(sm.events)}`,
      value: mib(lg.growth),
      reference: `${mib(sm.growth)}; documents ${mib(lg.bytes)} vs ${mib(sm.bytes)}`,
      ratio: `${ratio.toFixed(2)}×`,
      target: `≤ ${FLAT_FACTOR}× (flat: the document is ${fmt(lg.bytes / sm.bytes, 1)}× larger)`,
      met: ratio <= FLAT_FACTOR,
    },
    {
      what: `Erasure of the customer with ${fmt(DEBTS)} debts and ${fmt(lg.events)} events (\`POST /customers/{id}/erase\`)`,
      value: fmtMs(eraseMs),
      reference: `${left} events still naming the customer`,
      ratio: `${((eraseMs / ERASE_CEILING_MS) * 100).toFixed(0)}% of ceiling`,
      target: `< ${fmtMs(ERASE_CEILING_MS)}, none left`,
      met: eraseMs < ERASE_CEILING_MS && left === 0,
    },
  ];
  const notes = [
    `Method: two customers of one tenant, each with a date of birth, an e-mail and ${fmt(DEBTS)} debts made through the domain functions; ` +
      `events about them copied in SQL from their own \`customer.created\` (as \`customer.updated\`, carrying the names) and \`debt.created\` ` +
      `(as \`debt.updated\`): ${fmt(sm.events)} and ${fmt(lg.events)} events in all. The exports were downloaded (\`GET /customers/{id}/export\`, ` +
      `${mib(sm.bytes)} and ${mib(lg.bytes)} read as they streamed, in ${fmtMs(sm.ms)} and ${fmtMs(lg.ms)}) from one API process started for ` +
      `this with \`--expose-gc\` and a probe that forces a full garbage collection and then samples heapUsed + external every ${PROBE_MS} ms ` +
      'and at the first write of the body and every 128 KiB written, so each sample is the memory the process still references, whenever the collector would have run. Growth is the highest sample during ' +
      `the download (and the first after it) minus the median of 10 idle samples just before it; after a warm-up of each, ${ROUNDS} rounds of small then large, each ` +
      `size's highest growth counted (${sm.samples} and ${lg.samples} samples in the counted downloads). The ceiling is the small export's ` +
      `growth of the same run times ${FLAT_FACTOR}: an export that held its document or rows would grow about as many times as the document ` +
      'is larger. Then the large customer was erased through the API (no debt worked, no payment pending), timed from request to answer, ' +
      'and the events table searched for its name.',
  ];
  return {
    name: 'personal-data',
    title: "A customer's data (export and erasure)",
    runs: [],
    checks,
    notes,
  };
}
