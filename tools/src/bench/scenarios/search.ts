/**
 * Search at a million debts: `GET /debts/search` with a broad query (the issue's
 * `status:prepared AND amount_remaining>10000`, about 40% of a tenant's debts) and a selective one,
 * each beside pgbench of the SQL the search handler sends (routes/search.ts: the keyset page of the
 * matches and `count(*)` of the matches for `X-Total-Count`), with the plans of both statements.
 */
import { explainAnalyze, explainWithoutIndex, executionMs, log, type BenchContext } from '../context.js';
import { measureHttp } from '../load.js';
import { fmt, fmtMs, fmtRatio, type Check, type LoadRun, type ScenarioResult } from '../model.js';
import { measurePgbench } from '../pgbench.js';

const LIMIT = 100;

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

/** Runs both search queries on the shared data set (tenant A). */
export async function searchScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const { stack, settings } = ctx;
  const data = await ctx.dataset();
  const tenant = data.tenants[0];
  const token = await stack.token(tenant);
  const headers = { authorization: `Bearer ${token}` };
  const runs: LoadRun[] = [];
  const checks: Check[] = [];
  const notes: string[] = [];

  for (const c of CASES) {
    const path = `/debts/search?${new URLSearchParams({ query: c.query, limit: String(LIMIT) })}`;
    const probe = await fetch(`${stack.api.url}${path}`, { headers });
    const body = (await probe.json()) as { data?: unknown[] };
    if (probe.status !== 200) throw new Error(`GET ${path}: ${probe.status} ${JSON.stringify(body)}`);
    const matches = Number(probe.headers.get('x-total-count'));

    const pageSql = `SELECT * FROM debts WHERE ${VISIBLE} AND ${c.where} ORDER BY debts.seq DESC LIMIT ${LIMIT + 1}`;
    const countSql = `SELECT count(*) AS n FROM debts WHERE ${VISIBLE} AND ${c.where}`;
    log(`search: API ${c.query}`);
    const api = await measureHttp(`api.search.${c.key}`, `API GET /debts/search?query=${c.query}`, 'service', {
      url: `${stack.api.url}${path}`,
      method: 'GET',
      connections: settings.connections,
      headers,
      ...ctx.timing(),
    }, stack.api.child.pid);
    log(`search: pgbench ${c.query}`);
    const pg = await measurePgbench(`pg.search.${c.key}`, `pgbench: same SQL (page + count of ${fmt(matches)} matches)`, 'ceiling', {
      databaseUrl: settings.databaseUrl,
      clients: settings.connections,
      script: `${pageSql};\n${countSql};\n`,
      vars: { tenant: tenant.tenantId },
      ...ctx.timing(),
    });
    runs.push(api, pg);

    const bind = (sql: string) => sql.replaceAll(':tenant', '?');
    const pagePlan = await explainAnalyze(stack.db, bind(pageSql), [tenant.tenantId]);
    const countPlan = await explainAnalyze(stack.db, bind(countSql), [tenant.tenantId]);
    const countBefore = await explainWithoutIndex(stack.db, PERF_INDEX, bind(countSql), [tenant.tenantId]);
    const pageBefore = await explainWithoutIndex(stack.db, PERF_INDEX, bind(pageSql), [tenant.tenantId]);
    checks.push({
      what: `Search \`${c.query}\` (${fmt(matches)} matches): API vs pgbench of its SQL`,
      value: `${fmt(api.rps)} req/s, p50 ${fmtMs(api.p50)}`,
      reference: `${fmt(pg.rps)} tx/s`,
      ratio: fmtRatio(api.rps / pg.rps),
      target: '(indexed; context)',
      met: null,
    });
    checks.push({
      what: `Search \`${c.query}\`: X-Total-Count query with / without index 006_perf`,
      value: fmtMs(executionMs(countPlan)),
      reference: fmtMs(executionMs(countBefore)),
      ratio: fmtRatio(executionMs(countPlan) / executionMs(countBefore)),
      target: '(finding)',
      met: null,
    });
    notes.push(
      `\`${c.query}\`: ${fmt(matches)} of ${fmt(data.debtsPerTenant)} debts match. Page of ${LIMIT + 1} rows ` +
        `${fmtMs(executionMs(pagePlan))}, \`count(*)\` for X-Total-Count ${fmtMs(executionMs(countPlan))} ` +
        `(without the \`${PERF_INDEX}\` index of migration 006_perf, same data: page ${fmtMs(executionMs(pageBefore))}, ` +
        `count ${fmtMs(executionMs(countBefore))}). EXPLAIN (ANALYZE, BUFFERS) with the index:\n\n` +
        `\`\`\`\n${planSummary(pagePlan)}\n\n${planSummary(countPlan)}\n\`\`\``,
    );
  }
  return { name: 'search', title: 'Search at depth', runs, checks, notes };
}
