/**
 * `npm run bench [-- <scenario>…]`: builds its data set, runs the scenarios (all by default), prints
 * the result table, and, for a full run, writes BENCHMARKS.md and docs/benchmarks.svg. A run of
 * selected scenarios (`npm run bench:lists`, …) prints its table and leaves the report alone, so
 * the published figures always come from one complete run.
 *
 * `--report-only` rewrites the report from the last full run (.data/bench/last-run.json) without
 * measuring, e.g. after editing FINDINGS.md.
 *
 * `--into-report` (with selected self-contained scenarios only: retention, payouts, portal, personal-data, whose figures depend on
 * no other scenario and no data set) writes those scenarios' sections into the existing
 * BENCHMARKS.md, each with its own tables and the date of its run, e.g.
 * `npm run bench:retention -- --into-report`.
 *
 * Settings: see settings.ts (BENCH_DEBTS, BENCH_DURATION, BENCH_WARMUP, BENCH_CONNECTIONS, …).
 */
import { constants } from 'node:os';
import { BenchContext, log } from './context.js';
import { describeMachine } from './machine.js';
import { memoryScenario } from './scenarios/memory.js';
import { listsScenario } from './scenarios/lists.js';
import { payoutsScenario } from './scenarios/payouts.js';
import { portalScenario } from './scenarios/portal.js';
import { personalDataScenario } from './scenarios/personal-data.js';
import { retentionScenario } from './scenarios/retention.js';
import { searchScenario } from './scenarios/search.js';
import { tokensScenario } from './scenarios/tokens.js';
import { verificationScenario } from './scenarios/verification.js';
import { webhooksScenario } from './scenarios/webhooks.js';
import { engineScenario } from './scenarios/engine.js';
import { importsScenario } from './scenarios/imports.js';
import type { ScenarioResult } from './model.js';
import { readLastRun, renderTable, writeLastRun, writeReport, writeSections } from './report.js';
import { loadBenchSettings } from './settings.js';
import { Stack } from './stack.js';

/** Scenarios in run order. Memory comes last: it reads the peaks the others caused. */
const SCENARIOS: Record<string, (ctx: BenchContext) => Promise<ScenarioResult>> = {
  lists: listsScenario,
  search: searchScenario,
  tokens: tokensScenario,
  verification: verificationScenario,
  webhooks: webhooksScenario,
  retention: retentionScenario,
  payouts: payoutsScenario,
  engine: engineScenario,
  imports: importsScenario,
  portal: portalScenario,
  'personal-data': personalDataScenario,
  memory: memoryScenario,
};

/** Scenarios whose figures depend on no other scenario, so a run of them alone may update their report section. */
const SELF_CONTAINED = new Set(['retention', 'payouts', 'portal', 'personal-data']);

const args = process.argv.slice(2);
if (args[0] === '--report-only') {
  // Rewrites BENCHMARKS.md and the chart from the last full run's figures (e.g. after FINDINGS.md changed).
  const last = await readLastRun();
  const written = await writeReport(last);
  log(`wrote ${written.join(', ')} from the run of ${last.started.toISOString()}`);
  process.exit(0);
}
const intoReport = args.includes('--into-report');
const requested = args.filter((a) => a !== '--into-report');
const unknown = requested.filter((n) => !(n in SCENARIOS));
if (unknown.length) {
  process.stderr.write(`unknown scenario(s): ${unknown.join(', ')}; known: ${Object.keys(SCENARIOS).join(', ')}\n`);
  process.exit(2);
}
if (intoReport && (!requested.length || requested.some((n) => !SELF_CONTAINED.has(n)))) {
  process.stderr.write(`--into-report takes self-contained scenarios only (${[...SELF_CONTAINED].join(', ')}); a full run writes the whole report\n`);
  process.exit(2);
}
const selected = requested.length ? requested : Object.keys(SCENARIOS);
const settings = loadBenchSettings();
const started = new Date();
const machine = await describeMachine(settings);
log(`${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB.toFixed(0)} GiB; ${machine.node}; ${machine.postgres}`);
log(
  `settings: ${settings.debtsPerTenant} debts/tenant, ${settings.durationSec} s runs after ${settings.warmupSec} s warm-up, ${settings.connections} connections`,
);

const stack = await Stack.start(settings);
// A run stopped by a signal (`kill`, Ctrl-C) stops its services first: left running, they would
// write into the next run's recreated database (a signing key sealed with their own SECRETS_KEY,
// which the next issuer cannot open).
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void stack.stop().finally(() => process.exit(128 + constants.signals[signal])));
}
const ctx = new BenchContext(settings, stack);
const results: ScenarioResult[] = [];
let failed = false;
try {
  for (const name of selected) {
    log(`scenario ${name}`);
    try {
      results.push(await SCENARIOS[name]!(ctx));
    } catch (err) {
      failed = true;
      log(`scenario ${name} failed: ${(err as Error).stack ?? String(err)}`);
      results.push({ name, title: name, runs: [], checks: [], notes: [`**This scenario failed in this run:** ${(err as Error).message}`] });
    }
  }
} finally {
  await stack.stop();
}

const finished = new Date();
process.stdout.write(renderTable(results));
await writeLastRun({ results, machine, settings, started, finished }, requested.length > 0);
if (!requested.length) {
  const written = await writeReport({ results, machine, settings, started, finished });
  log(`wrote ${written.join(', ')}`);
} else if (intoReport && !failed) {
  const written = await writeSections({ results, machine, settings, started, finished });
  log(`wrote ${written.join(', ')}`);
}
process.exit(failed ? 1 : 0);
