/**
 * Lists at depth: `GET /debts?limit=100` on the first page and after the 90%-deep debt, beside
 * the same keyset SQL driven by pgbench (the database's ceiling) and `OFFSET` (naive paging); and
 * the API's pages (debts first and deep, `GET /payments?limit=100`, a selective debt search) beside
 * a bare node:http + pg server serving the same pages (ceiling/bare-server.ts: the same SQL, the same
 * JSON bytes, checked before loading, the same load generator and worker count): the HTTP ceiling.
 *
 * The pgbench scripts repeat the statements the API's list handler sends
 * (services/api/src/operations/lists.ts with services/api/src/http/pagination.ts: cursor lookup, keyset page of limit + 1 rows, maintained counter), with the
 * constant `'deleted'` written inline where Knex binds it.
 */
import { explainAnalyze, executionMs, log, type BenchContext } from '../context.js';
import { debtAtPosition } from '../dataset.js';
import { measureHttp } from '../load.js';
import { fmt, fmtMs, fmtRatio, type Check, type LoadRun, type ScenarioResult } from '../model.js';
import { measurePgbench } from '../pgbench.js';
import { startBareServer } from '../ceiling/bare.js';
import { assertSamePage } from '../ceiling/compare.js';

const LIMIT = 100;
/** The deep page starts after this fraction of the tenant's debts (900,000 of 1,000,000). */
const DEPTH = 0.9;
/** Transactions of the single OFFSET client. */
const OFFSET_TRANSACTIONS = 5;
/** The selective search of the search scenario (about 3% of a tenant's debts). */
const SEARCH_QUERY = 'status:disputed AND amount_remaining>150000';

const VISIBLE = `debts.tenant_id = :tenant AND NOT debts.status = 'deleted'`;
const COUNTER = `SELECT coalesce(sum(count), 0) FROM list_counters WHERE tenant_id = :tenant AND list = 'debts' AND parent_id = '';`;
const FIRST_PAGE_SQL = `SELECT * FROM debts WHERE ${VISIBLE} ORDER BY debts.seq DESC LIMIT ${LIMIT + 1};\n${COUNTER}\n`;
const DEEP_PAGE_SQL =
  `SELECT debts.seq AS cursor_seq FROM debts WHERE ${VISIBLE} AND debts.id = :cursor LIMIT 1 \\gset\n` +
  `SELECT * FROM debts WHERE ${VISIBLE} AND debts.seq < :cursor_seq ORDER BY debts.seq DESC LIMIT ${LIMIT + 1};\n${COUNTER}\n`;

/** The lines of a plan worth quoting: nodes, buffers and timing, without the noise. */
function planSummary(plan: string): string {
  return plan
    .split('\n')
    .filter((l) => /->|Scan|Limit|Sort|Buffers|Execution Time|Planning Time|Rows Removed/.test(l))
    .slice(0, 12)
    .join('\n');
}

/** Runs the lists scenario on the shared data set (tenant A). */
export async function listsScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const { stack, settings } = ctx;
  const data = await ctx.dataset();
  const tenant = data.tenants[0];
  const depth = Math.floor(data.debtsPerTenant * DEPTH);
  const cursor = await debtAtPosition(stack.db, tenant.tenantId, depth);
  const token = await stack.token(tenant);
  const headers = { authorization: `Bearer ${token}` };
  const firstPath = `/debts?limit=${LIMIT}`;
  const deepPath = `/debts?limit=${LIMIT}&after=${cursor}`;

  // The runs below must measure real pages: check them once before loading.
  for (const path of [firstPath, deepPath]) {
    const res = await fetch(`${stack.api.url}${path}`, { headers });
    const body = (await res.json()) as { data?: unknown[] };
    if (res.status !== 200 || body.data?.length !== LIMIT) throw new Error(`GET ${path}: ${res.status}, ${body.data?.length} items`);
    if (Number(res.headers.get('x-total-count')) !== data.debtsPerTenant) throw new Error(`GET ${path}: X-Total-Count ${res.headers.get('x-total-count')}`);
  }

  const pg = { databaseUrl: settings.databaseUrl, clients: settings.connections, ...ctx.timing() };
  const at = `after ${fmt(depth)}`;
  const pages = await pagesBesideBare(ctx, headers, { firstPath, deepPath, at });
  const apiFirst = pages.api.first!;
  const apiDeep = pages.api.deep!;
  log('lists: pgbench first page');
  const pgFirst = await measurePgbench('pg.list.first', 'pgbench: same keyset SQL, first page', 'ceiling', {
    ...pg,
    script: FIRST_PAGE_SQL,
    vars: { tenant: tenant.tenantId },
  });
  log('lists: pgbench deep page');
  const pgDeep = await measurePgbench('pg.list.deep', `pgbench: same keyset SQL, ${at}`, 'ceiling', {
    ...pg,
    script: DEEP_PAGE_SQL,
    vars: { tenant: tenant.tenantId, cursor },
  });
  log('lists: pgbench OFFSET');
  const offsetSql = `SELECT * FROM debts WHERE ${VISIBLE} ORDER BY debts.seq DESC LIMIT ${LIMIT + 1} OFFSET ${depth};\n${COUNTER}\n`;
  // One client, a few transactions: each statement reads `depth` rows, so ten clients for a fixed
  // duration would mostly measure queueing (and could end before any finished).
  const pgOffset = await measurePgbench('pg.list.offset', `pgbench: OFFSET ${fmt(depth)} SQL (naive paging, 1 client)`, 'contrast', {
    ...pg,
    clients: 1,
    transactions: OFFSET_TRANSACTIONS,
    script: offsetSql,
    vars: { tenant: tenant.tenantId },
  });

  // Plans: the deep keyset page, the OFFSET page, and the total from the counter vs count(*).
  const bind = (sql: string) =>
    sql
      .replaceAll(':tenant', '?')
      .replaceAll(':cursor_seq', '?')
      .replace(/;\n[\s\S]*$/, '');
  const { rows: seqRows } = await stack.db.raw(`SELECT seq FROM debts WHERE id = ?`, [cursor]);
  const deepPlan = await explainAnalyze(stack.db, bind(DEEP_PAGE_SQL.split('\n')[1]!), [tenant.tenantId, seqRows[0].seq]);
  const offsetPlan = await explainAnalyze(stack.db, bind(offsetSql), [tenant.tenantId], 1);
  const counterPlan = await explainAnalyze(stack.db, bind(COUNTER), [tenant.tenantId]);
  const countStarPlan = await explainAnalyze(
    stack.db,
    `SELECT count(*) FROM debts WHERE debts.tenant_id = ? AND NOT debts.status = 'deleted'`,
    [tenant.tenantId],
    2,
  );

  const runs: LoadRun[] = [...pages.runs, pgFirst, pgDeep, pgOffset];
  const depthRatio = apiDeep.p50 / apiFirst.p50;
  const checks: Check[] = [
    {
      what: 'Deep page p50 vs first page p50 (API)',
      value: fmtMs(apiDeep.p50),
      reference: fmtMs(apiFirst.p50),
      ratio: fmtRatio(depthRatio),
      target: '≤ 1.20×',
      met: depthRatio <= 1.2,
    },
    {
      what: 'API first page throughput vs pgbench of its SQL',
      value: `${fmt(apiFirst.rps)} req/s`,
      reference: `${fmt(pgFirst.rps)} tx/s`,
      ratio: fmtRatio(apiFirst.rps / pgFirst.rps),
      // The database's own ceiling, kept as context: pgbench neither formats nor sends rows, so an
      // HTTP API's ceiling is the bare server's figure (the API / bare checks below carry the target).
      target: '(database ceiling)',
      met: null,
    },
    {
      what: 'API deep page throughput vs pgbench of its SQL',
      value: `${fmt(apiDeep.rps)} req/s`,
      reference: `${fmt(pgDeep.rps)} tx/s`,
      ratio: fmtRatio(apiDeep.rps / pgDeep.rps),
      // The database's own ceiling, kept as context: pgbench neither formats nor sends rows, so an
      // HTTP API's ceiling is the bare server's figure (the API / bare checks below carry the target).
      target: '(database ceiling)',
      met: null,
    },
    {
      // Single executions compared (EXPLAIN ANALYZE), since the OFFSET run has one client.
      what: `OFFSET ${fmt(depth)} vs keyset after the same debt (execution, EXPLAIN ANALYZE)`,
      value: fmtMs(executionMs(offsetPlan)),
      reference: fmtMs(executionMs(deepPlan)),
      ratio: fmtRatio(executionMs(offsetPlan) / executionMs(deepPlan)),
      target: 'far behind (shown)',
      met: executionMs(offsetPlan) > 10 * executionMs(deepPlan),
    },
    {
      what: 'X-Total-Count: counter read vs count(*) (execution)',
      value: fmtMs(executionMs(counterPlan)),
      reference: fmtMs(executionMs(countStarPlan)),
      ratio: fmtRatio(executionMs(counterPlan) / executionMs(countStarPlan)),
      target: 'O(1)',
      // The total must come from the counter row alone, never from the debts.
      met: !/ on debts\b/.test(counterPlan),
    },
    ...pages.checks,
  ];
  const notes = [
    `Data: two tenants × ${fmt(data.debtsPerTenant)} debts (${fmt(data.organisationsPerTenant)} organisations and ${fmt(data.customersPerTenant)} customers each), ` +
      `interleaved row by row in the heap (${fmt(data.debtsMiB)} MiB with indexes), bulk-loaded in ${data.loadSeconds.toFixed(0)} s. ` +
      `The lists read tenant A; tenant B's rows sit on the same heap pages, so its isolation is paid by the index alone. ` +
      `Payments: ${fmt(data.paymentsPerTenant)} per tenant (one succeeded payment for about one debt in ten).`,
    ...pages.notes,
    `The pgbench scripts send the API's statements (cursor lookup by id, keyset page of ${LIMIT + 1} rows ordered by \`seq\`, counter read) ` +
      `with ${settings.connections} clients, \`-M prepared\`, the same warm-up and duration as the HTTP runs.`,
    `Deep keyset page (\`seq < cursor\`), EXPLAIN (ANALYZE, BUFFERS):\n\n\`\`\`\n${planSummary(deepPlan)}\n\`\`\``,
    `\`OFFSET ${fmt(depth)}\`, EXPLAIN (ANALYZE, BUFFERS):\n\n\`\`\`\n${planSummary(offsetPlan)}\n\`\`\``,
    `\`X-Total-Count\` sums the list's \`list_counters\` shards (at most 16 rows by primary key) (${fmtMs(executionMs(counterPlan))}); ` +
      `\`count(*)\` over the tenant's visible debts takes ${fmtMs(executionMs(countStarPlan))}.`,
  ];
  return { name: 'lists', title: 'Lists at depth', runs, checks, notes };
}

/**
 * Each page measured on the API and, right after, on the bare server (started here, stopped at the
 * end), once both answered the same bytes: runs, the API / bare checks and the method note.
 */
async function pagesBesideBare(
  ctx: BenchContext,
  headers: Record<string, string>,
  p: { firstPath: string; deepPath: string; at: string },
): Promise<{ api: Record<string, LoadRun>; runs: LoadRun[]; checks: Check[]; notes: string[] }> {
  const { stack, settings } = ctx;
  const searchPath = `/debts/search?${new URLSearchParams({ query: SEARCH_QUERY, limit: String(LIMIT) }).toString()}`;
  const pages = [
    { key: 'first', path: p.firstPath, label: 'GET /debts?limit=100 (first page)', target: 0.8 },
    { key: 'deep', path: p.deepPath, label: `GET /debts?limit=100&after=… (${p.at})`, target: 0.8 },
    { key: 'payments', path: `/payments?limit=${LIMIT}`, label: 'GET /payments?limit=100', target: 0.7 },
    { key: 'search', path: searchPath, label: `GET /debts/search?query=${SEARCH_QUERY}&limit=100`, target: 0.7 },
  ];
  const server = await startBareServer(settings, stack);
  const api: Record<string, LoadRun> = {};
  const runs: LoadRun[] = [];
  const checks: Check[] = [];
  const sizes: string[] = [];
  try {
    const http = { method: 'GET' as const, connections: settings.connections, headers, ...ctx.timing() };
    for (const page of pages) {
      sizes.push(`${page.key} ${fmt((await assertSamePage(stack.api.url, server.url, page.path, headers, LIMIT)) / 1024, 1)} KiB`);
      log(`lists: API ${page.label}`);
      const a = await measureHttp(
        `api.list.${page.key}`,
        `API ${page.label}`,
        'service',
        { ...http, url: stack.api.url, variants: [{ path: page.path }] },
        stack.api.child.pid,
      );
      log(`lists: bare server ${page.label}`);
      const b = await measureHttp(
        `bare.list.${page.key}`,
        `bare node:http + pg: ${page.label}`,
        'ceiling',
        { ...http, url: server.url, variants: [{ path: page.path }] },
        server.child.pid,
      );
      api[page.key] = a;
      runs.push(a, b);
      checks.push({
        what: `API / bare server: ${page.label}`,
        value: `${fmt(a.rps)} req/s`,
        reference: `${fmt(b.rps)} req/s`,
        ratio: fmtRatio(a.rps / b.rps),
        target: `≥ ${page.target.toFixed(2)}×`,
        met: a.rps / b.rps >= page.target,
      });
    }
  } finally {
    await server.stop();
  }
  const note =
    `The bare server (tools/src/bench/ceiling/) runs ${settings.webConcurrency} worker(s) (node:cluster above one), as many as the API, with node:http and pg alone: ` +
    `the API's statements (named, so prepared once per connection, as the API sends its list statements; the search unnamed, as the API sends it), pg's default row parsing (timestamps to \`Date\`), \`JSON.stringify\`, the API's pagination headers, ` +
    `and a minimal check of the bearer token (RS256 signature with the issuer's JWKS key, \`iss\`, \`aud\`, \`exp\`; no cache), where the API adds its framework, ` +
    `validation, rate limiting, metrics and request log. Before loading, each page's body from both servers was compared byte for byte ` +
    `(identical: ${sizes.join(', ')}) with the same \`X-Total-Count\`. Each API run is followed by the bare run of the same page.`;
  return { api, runs, checks, notes: [note] };
}
