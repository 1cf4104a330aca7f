/**
 * A customer's data (docs/api.md section 20): the export of a long history streams with flat
 * memory, and the erasure of a large customer stays quick.
 *
 * - Data: two customers of one tenant, each with a date of birth, an e-mail and `DEBTS` debts made
 *   through the domain functions, then events about them copied in SQL from their own (half
 *   `customer.updated` carrying the names, half `debt.updated`): 1,000 for the small one, 10,000
 *   for the large one.
 * - Export: `GET /customers/{id}/export` through the API, the body read as it streams, while the
 *   RSS of every API process is sampled every `SAMPLE_MS`; then the same export in this process
 *   (`exportCustomer`, the function the API streams), sampling `heapUsed`. The check: the peak
 *   growth for 10,000 events within `FLAT_FACTOR` times that for 1,000 (a document ten times
 *   larger).
 * - Erasure: `POST /customers/{id}/erase` of the large customer, timed; ceiling `ERASE_CEILING_MS`.
 */
import { createCustomer } from '@dms/domain/customers';
import { createDebt } from '@dms/domain/debts';
import { createOrganisationWithDetails } from '@dms/domain/organisation-contact-details';
import { exportCustomer } from '@dms/domain/personal-data';
import { log, type BenchContext } from '../context.js';
import { fmt, fmtMs, type Check, type ScenarioResult } from '../model.js';
import { memoryOf, processTree } from '../proc.js';

/** Debts of each customer. */
const DEBTS = 100;
/** Events about the small and the large customer. */
const SMALL_EVENTS = 1_000;
const LARGE_EVENTS = 10_000;
/** Memory sampling interval, ms. */
const SAMPLE_MS = 5;
/** The large export's peak memory growth at most this many times the small one's. */
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

/** Samples `read()` every SAMPLE_MS while `work` runs; returns the peak minus the value before, and the work's result. */
async function peakGrowth<T>(read: () => number, work: () => Promise<T>): Promise<{ growth: number; result: T; ms: number }> {
  const base = read();
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, read())), SAMPLE_MS);
  const started = performance.now();
  try {
    const result = await work();
    peak = Math.max(peak, read());
    return { growth: peak - base, result, ms: performance.now() - started };
  } finally {
    clearInterval(timer);
  }
}

/** The resident set of every API process (primary and workers) summed, bytes. */
function apiRss(ctx: BenchContext): number {
  return processTree(ctx.stack.api.child.pid!).reduce((sum, pid) => sum + memoryOf(pid).currentMiB * MiB, 0);
}

interface ExportFigures {
  events: number;
  bytes: number;
  rssGrowth: number;
  httpMs: number;
  heapGrowth: number;
}

/** Exports the customer through the API (RSS sampled) and in this process (heapUsed sampled). */
async function measureExport(ctx: BenchContext, token: string, tenantId: string, customerId: string): Promise<ExportFigures> {
  const http = await peakGrowth(
    () => apiRss(ctx),
    async () => {
      const res = await fetch(`${ctx.stack.api.url}/customers/${customerId}/export`, { headers: { authorization: `Bearer ${token}` } });
      if (res.status !== 200) throw new Error(`GET /customers/<id>/export: ${res.status}`);
      let bytes = 0;
      for await (const chunk of res.body!) bytes += (chunk as Uint8Array).length;
      return bytes;
    },
  );
  (globalThis as { gc?: () => void }).gc?.();
  const local = await peakGrowth(
    () => process.memoryUsage().heapUsed,
    async () => {
      let events = 0;
      let inEvents = false;
      for await (const chunk of await exportCustomer(ctx.stack.db, tenantId, customerId)) {
        if (chunk.startsWith(',"')) inEvents = chunk === ',"events":[';
        else if (inEvents && chunk !== ']') events++;
      }
      return events;
    },
  );
  return { events: local.result, bytes: http.result, rssGrowth: http.growth, httpMs: http.ms, heapGrowth: local.growth };
}

/** The personal-data scenario. */
export async function personalDataScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const { stack } = ctx;
  const tenant = await stack.newTenant('Bench Personal Data Tenant');
  const token = await stack.token(tenant);
  const org = await createOrganisationWithDetails(stack.db, tenant.tenantId, { name: 'Bench Personal Data Energy' });
  const small = await seedPerson(ctx, tenant.tenantId, org.id, 'small', SMALL_EVENTS);
  const large = await seedPerson(ctx, tenant.tenantId, org.id, 'large', LARGE_EVENTS);
  // A first export of each warms the API's code paths and connections; the second is measured.
  for (const id of [small, large]) await measureExport(ctx, token, tenant.tenantId, id);
  const s = await measureExport(ctx, token, tenant.tenantId, small);
  const l = await measureExport(ctx, token, tenant.tenantId, large);
  log(
    `personal-data: export ${fmt(s.events)} events ${mib(s.bytes)} heap +${mib(s.heapGrowth)}; ${fmt(l.events)} events ${mib(l.bytes)} heap +${mib(l.heapGrowth)}`,
  );

  const started = performance.now();
  const erased = await stack.request(token, 'POST', `/customers/${large}/erase`, { reason: 'Bench: Article 17 request' });
  const eraseMs = performance.now() - started;
  if (erased.first_name !== '[erased]') throw new Error('the erasure answered a customer not erased');
  const [{ n: left }] = (
    await stack.db.raw(`SELECT count(*)::int AS n FROM events WHERE tenant_id = ? AND data::text LIKE '%Person large%'`, [tenant.tenantId])
  ).rows;
  log(`personal-data: erased ${fmt(l.events)} events' customer in ${fmtMs(eraseMs)}; events still naming it: ${left}`);

  const heapRatio = l.heapGrowth / Math.max(s.heapGrowth, 1);
  const checks: Check[] = [
    {
      what: `Export heap growth (peak heapUsed − before), ${fmt(l.events)} events vs ${fmt(s.events)}`,
      value: mib(l.heapGrowth),
      reference: `${mib(s.heapGrowth)}; documents ${mib(l.bytes)} vs ${mib(s.bytes)}`,
      ratio: `${heapRatio.toFixed(2)}×`,
      target: `≤ ${FLAT_FACTOR}× (flat: the document is ${fmt(l.bytes / s.bytes, 1)}× larger)`,
      met: heapRatio <= FLAT_FACTOR,
    },
    {
      what: `Export through the API: RSS growth of the API processes, ${fmt(l.events)} events vs ${fmt(s.events)}`,
      value: mib(l.rssGrowth),
      reference: mib(s.rssGrowth),
      ratio: '',
      target: '(context: RSS includes freed heap not yet returned)',
      met: null,
    },
    {
      what: `Erasure of the customer with ${fmt(DEBTS)} debts and ${fmt(l.events)} events (\`POST /customers/{id}/erase\`)`,
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
      `(as \`debt.updated\`): ${fmt(s.events)} and ${fmt(l.events)} events in all. Each export was run once to warm up, then measured: ` +
      `through the API (\`GET /customers/{id}/export\`, ${mib(s.bytes)} and ${mib(l.bytes)} read as they streamed, in ${fmtMs(s.httpMs)} ` +
      `and ${fmtMs(l.httpMs)}; the RSS of every API process summed every ${SAMPLE_MS} ms), then in the harness's process with the ` +
      `function the API streams (\`exportCustomer\`), \`process.memoryUsage().heapUsed\` sampled every ${SAMPLE_MS} ms; growth is the ` +
      'peak minus the value just before. Then the large customer was erased through the API (no debt worked, no payment pending), timed ' +
      'from request to answer, and the events table searched for its name.',
  ];
  return {
    name: 'personal-data',
    title: "A customer's data (export and erasure)",
    runs: [],
    checks,
    notes,
  };
}
