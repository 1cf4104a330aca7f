/**
 * Search at a million debts: `GET /debts/search` with a broad query (the issue's
 * `status:prepared AND amount_remaining>10000`, about 40% of a tenant's debts) and a selective one,
 * each checked against the target (p50 <= 50 ms at BENCH_CONNECTIONS connections) and
 * beside pgbench of the SQL the search handler sends (services/api/src/operations/lists.ts `searchPage`: the keyset
 * page of the matches, and for `X-Total-Count` the matches counted up to `SEARCH_TOTAL_CAP`,
 * libs/search/src/total.ts, docs/api.md section 4), with the plans of both statements and
 * the exact `count(*)` the capped count replaced.
 */
import { DEFAULT_SEARCH_TOTAL_CAP } from '@dms/search';
import type { Knex } from '@dms/db';
import { explainAnalyze, explainWithoutIndex, executionMs, log, type BenchContext } from '../context.js';
import { measureHttp } from '../load.js';
import { fmt, fmtMs, fmtRatio, type Check, type LoadRun, type ScenarioResult } from '../model.js';
import { measurePgbench } from '../pgbench.js';

const LIMIT = 100;

/** The target for every search: p50 at BENCH_CONNECTIONS connections, ms. */
const P50_TARGET_MS = 50;

interface SearchCase {
  key: string;
  query: string;
  /** The query's conditions in SQL, as the search compiler emits them (pgbench variables). */
  where: string;
}

const CASES: SearchCase[] = [
  { key: 'broad', query: 'status:prepared AND amount_remaining>10000', where: `debts.status = 'prepared' AND debts.amount_remaining > 10000` },
  { key: 'selective', query: 'status:disputed AND amount_remaining>150000', where: `debts.status = 'disputed' AND debts.amount_remaining > 150000` },
];

const VISIBLE = `debts.tenant_id = :tenant AND NOT debts.status = 'deleted'`;

/** The index migration 006_perf added for these queries; its effect is shown in the same run. */
const PERF_INDEX = 'debts_search_status_amount';

/** Plan lines worth quoting. */
function planSummary(plan: string): string {
  return plan
    .split('\n')
    .filter((l) => /->|Scan|Limit|Aggregate|Sort|Buffers|Execution Time|Rows Removed|Heap Fetches/.test(l))
    .slice(0, 14)
    .join('\n');
}

/** A sort may feed the page only when few rows match (the planner's choice then): at most this many. */
const FEW_SORTED_ROWS = 10 * (LIMIT + 1);

/**
 * How the page's rows are found: read in `seq` order along an index (no sort: the scan stops after
 * `limit + 1` matches, having skipped the rows its filter removed), else by sorting the matches.
 */
function pageShape(plan: string): { what: string; bounded: boolean } {
  const lines = plan.split('\n');
  const sort = lines.findIndex((l) => /\bSort\b/.test(l) && l.includes('actual'));
  if (sort < 0) {
    const scan = /Index (?:Only )?Scan(?: Backward)? using (\w+)/.exec(plan)?.[1] ?? 'an index';
    const removed = Number(/Rows Removed by Filter: (\d+)/.exec(plan)?.[1] ?? 0);
    return { what: `ordered range of ${scan} (${fmt(removed)} rows filtered out)`, bounded: true };
  }
  // The sort's input: the first plan node below it.
  const input = lines.slice(sort + 1).find((l) => l.includes('->') && l.includes('actual'));
  const sorted = Number(/actual time=[\d.]+\.\.[\d.]+ rows=(\d+)/.exec(input ?? '')?.[1] ?? NaN);
  return { what: `sort of ${fmt(sorted)} rows`, bounded: sorted <= FEW_SORTED_ROWS };
}

/**
 * Execution time of a statement, ms: the median of `runs` `EXPLAIN (ANALYZE, TIMING OFF)`. Without
 * per-node clocks, which would add a clock read per row and node and so inflate the capped count
 * (every row passes a Limit node too) against the exact one.
 */
async function statementMs(db: Knex, sql: string, bindings: readonly Knex.RawBinding[], runs = 5): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const { rows } = await db.raw(`EXPLAIN (ANALYZE, TIMING OFF) ${sql}`, bindings);
    times.push(executionMs((rows as Array<{ 'QUERY PLAN': string }>).map((r) => r['QUERY PLAN']).join('\n')));
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)]!;
}

/** The SQL of one search, as the handler sends it (constants inline where Knex binds them). */
function statements(c: SearchCase, cap: number) {
  const matches = `FROM debts WHERE ${VISIBLE} AND ${c.where}`;
  return {
    page: `SELECT * ${matches} ORDER BY debts.seq DESC LIMIT ${LIMIT + 1}`,
    count: `SELECT count(*) AS n FROM (SELECT 1 ${matches} LIMIT ${cap + 1}) AS matches`,
    exact: `SELECT count(*) AS n ${matches}`,
  };
}

/** Runs both search queries on the shared data set (tenant A). */
export async function searchScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const { stack, settings } = ctx;
  const data = await ctx.dataset();
  const tenant = data.tenants[0];
  const token = await stack.token(tenant);
  const headers = { authorization: `Bearer ${token}` };
  // The cap the API under test runs with (its environment over ours, else the API's default).
  const cap = Number({ ...process.env, ...stack.env }.SEARCH_TOTAL_CAP ?? DEFAULT_SEARCH_TOTAL_CAP);
  const runs: LoadRun[] = [];
  const checks: Check[] = [];
  const notes: string[] = [
    `Search totals count at most \`SEARCH_TOTAL_CAP\` = ${fmt(cap)} matches (docs/api.md section 4): ` +
      `past it \`X-Total-Count\` is ${fmt(cap)} with \`X-Total-Count-Relation: gte\`, else the exact count with \`eq\`.`,
  ];

  for (const c of CASES) {
    const path = `/debts/search?${new URLSearchParams({ query: c.query, limit: String(LIMIT) }).toString()}`;
    const probe = await fetch(`${stack.api.url}${path}`, { headers });
    const body = (await probe.json()) as { data?: unknown[] };
    if (probe.status !== 200) throw new Error(`GET ${path}: ${probe.status} ${JSON.stringify(body)}`);
    const sql = statements(c, cap);
    const bind = (s: string) => s.replaceAll(':tenant', '?');
    const [exact] = (await stack.db.raw(bind(sql.exact), [tenant.tenantId])).rows as Array<{ n: string }>;
    const matches = Number(exact!.n);
    const header = `X-Total-Count: ${probe.headers.get('x-total-count')}, ${probe.headers.get('x-total-count-relation')}`;
    const expected = matches > cap ? `X-Total-Count: ${cap}, gte` : `X-Total-Count: ${matches}, eq`;
    if (header !== expected) throw new Error(`GET ${path}: ${header}, expected ${expected} (${matches} matches, cap ${cap})`);

    log(`search: API ${c.query}`);
    const api = await measureHttp(
      `api.search.${c.key}`,
      `API GET /debts/search?query=${c.query}`,
      'service',
      {
        url: `${stack.api.url}${path}`,
        method: 'GET',
        connections: settings.connections,
        headers,
        ...ctx.timing(),
      },
      stack.api.child.pid,
    );
    log(`search: pgbench ${c.query}`);
    const pg = await measurePgbench(`pg.search.${c.key}`, `pgbench: same SQL (page + count up to ${fmt(cap)} of ${fmt(matches)} matches)`, 'ceiling', {
      databaseUrl: settings.databaseUrl,
      clients: settings.connections,
      script: `${sql.page};\n${sql.count};\n`,
      vars: { tenant: tenant.tenantId },
      ...ctx.timing(),
    });
    runs.push(api, pg);

    const plan = (s: string) => explainAnalyze(stack.db, bind(s), [tenant.tenantId]);
    const time = (s: string) => statementMs(stack.db, bind(s), [tenant.tenantId]);
    const [pagePlan, countPlan] = [await plan(sql.page), await plan(sql.count)];
    const [pageMs, countMs, exactMs] = [await time(sql.page), await time(sql.count), await time(sql.exact)];
    const countBefore = await explainWithoutIndex(stack.db, PERF_INDEX, bind(sql.count), [tenant.tenantId]);
    checks.push({
      what: `Search \`${c.query}\` (${fmt(matches)} matches; ${header}): p50 at ${settings.connections} connections`,
      value: fmtMs(api.p50),
      reference: `${fmt(api.rps)} req/s`,
      ratio: fmtRatio(api.p50 / P50_TARGET_MS),
      target: `p50 ≤ ${P50_TARGET_MS} ms`,
      met: api.p50 <= P50_TARGET_MS,
    });
    checks.push({
      what: `Search \`${c.query}\`: API vs pgbench of its SQL`,
      value: `${fmt(api.rps)} req/s`,
      reference: `${fmt(pg.rps)} tx/s`,
      ratio: fmtRatio(api.rps / pg.rps),
      target: '(context)',
      met: null,
    });
    checks.push({
      what: `Search \`${c.query}\`: X-Total-Count query, counted up to ${fmt(cap)} / exact \`count(*)\``,
      value: fmtMs(countMs),
      reference: fmtMs(exactMs),
      ratio: fmtRatio(countMs / exactMs),
      target: '(finding)',
      met: null,
    });
    const shape = pageShape(pagePlan);
    checks.push({
      what: `Search \`${c.query}\`: page SQL is an ordered index range (or sorts few rows)`,
      value: shape.what,
      reference: fmtMs(pageMs),
      ratio: '',
      target: `no sort of > ${fmt(FEW_SORTED_ROWS)} rows`,
      met: shape.bounded,
    });
    notes.push(
      `\`${c.query}\`: ${fmt(matches)} of ${fmt(data.debtsPerTenant)} debts match; the API answers ${header}. ` +
        `Statement times (median of 5 EXPLAIN (ANALYZE, TIMING OFF)): page of ${LIMIT + 1} rows ${fmtMs(pageMs)}, ` +
        `X-Total-Count counted up to ${fmt(cap)} ${fmtMs(countMs)}, an exact \`count(*)\` of every match ${fmtMs(exactMs)}. ` +
        `The capped count with / without the \`${PERF_INDEX}\` index of migration 006_perf (EXPLAIN ANALYZE, same data): ` +
        `${fmtMs(executionMs(countPlan))} / ${fmtMs(executionMs(countBefore))}. EXPLAIN (ANALYZE, BUFFERS) of the page and of the capped count:\n\n` +
        `\`\`\`\n${planSummary(pagePlan)}\n\n${planSummary(countPlan)}\n\`\`\``,
    );
  }
  return { name: 'search', title: 'Search at depth', runs, checks, notes };
}
