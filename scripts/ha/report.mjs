/**
 * Figures of a `npm run ha:verify` run: when a primary answered (Patroni's `/primary`, which
 * HAProxy routes by, polled every 200 ms), per disruption the time without one, how long writes
 * stalled and how many answers clients retried; then the run's checks, printed, and the verdict.
 */
import { sleep } from './proc.mjs';

/**
 * Polls which node is primary.
 * @returns {{ samples: { t: number, name: string | undefined }[], stop: () => Promise<void> }}
 */
export function watchPrimary(cluster, everyMs = 200) {
  /** @type {{ t: number, name: string | undefined }[]} */
  const samples = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = Date.now();
      samples.push({ t: started, name: (await cluster.primary())?.name });
      await sleep(Math.max(0, everyMs - (Date.now() - started)));
    }
  })();
  return {
    samples,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

/** Longest and total time within [start, end] when no sample saw a primary, seconds. */
function withoutPrimary(samples, start, end) {
  let longest = 0;
  let total = 0;
  let since;
  for (const s of samples.filter((x) => x.t >= start && x.t <= end)) {
    if (!s.name) since ??= s.t;
    else if (since !== undefined) {
      longest = Math.max(longest, s.t - since);
      total += s.t - since;
      since = undefined;
    }
  }
  return { longest: longest / 1000, total: total / 1000 };
}

/** Figures of one phase: time without a primary, longest stall of acknowledged writes, retries. */
export function phaseFigures(p, stats, samples) {
  const inside = (t) => t >= p.start && t <= p.end;
  const acks = [stats.acks.filter((t) => t < p.start).at(-1) ?? p.start, ...stats.acks.filter(inside), p.end];
  let stall = 0;
  for (let i = 1; i < acks.length; i++) stall = Math.max(stall, acks[i] - acks[i - 1]);
  return {
    noPrimary: withoutPrimary(samples, p.start, p.end),
    stallSeconds: stall / 1000,
    retried503: stats.retries.filter(inside).length,
    connectionRetries: stats.connectionRetries.filter(inside).length,
    acks: stats.acks.filter(inside).length,
  };
}

const pad = (s, n) => String(s).padEnd(n);
const secs = (x) => `${x.toFixed(1)} s`;

/**
 * Prints a run's figures and checks.
 * @returns true when every check passed
 */
export function printRun(r, say) {
  const failures = [];
  const check = (ok, what) => {
    if (!ok) failures.push(what);
  };
  say(`run ${r.run}:`);
  say(`  ${pad('phase', 58)}${pad('no primary', 12)}${pad('writes stalled', 16)}${pad('503 retried', 13)}conn. retried`);
  for (const p of r.phases) {
    say(`  ${pad(p.name, 58)}${pad(secs(p.noPrimary.longest), 12)}${pad(secs(p.stallSeconds), 16)}${pad(p.retried503, 13)}${p.connectionRetries}`);
    if (p.detail) say(`    (${p.detail}; ${p.acks} writes acknowledged meanwhile)`);
  }
  const steps = ['debt', 'ready', 'pay', 'pause'].map((s) => r.units.filter((u) => u.acked[s]).length);
  const writes = steps.reduce((a, b) => a + b, 0);
  say(
    `  writes acknowledged: ${writes} (${steps[0]} debts created, ${steps[1]} made ready, ${steps[2]} payments, ${steps[3]} timed pauses); tokens issued: ${r.stats.tokens}`,
  );
  say(
    `  client-visible errors: ${r.stats.unexpected.length} (besides ${r.stats.retries.length} answers 503 with Retry-After and ${r.stats.connectionRetries.length} lost connections, each retried with its Idempotency-Key)`,
  );
  for (const e of r.stats.unexpected.slice(0, 10)) say(`    ${e.request}: ${e.answer}`);
  check(r.stats.unexpected.length === 0, 'client-visible errors');
  say(`  acknowledged writes lost: ${r.found.lost.length}${r.found.lost.length ? `: ${r.found.lost.slice(0, 5).join('; ')}` : ''}`);
  check(r.found.lost.length === 0, 'acknowledged writes lost');
  say(`  duplicated writes: ${r.found.duplicated.length}${r.found.duplicated.length ? `: ${r.found.duplicated.slice(0, 5).join('; ')}` : ''}`);
  check(r.found.duplicated.length === 0, 'duplicated writes');
  say(
    `  events not delivered: ${r.found.undelivered.length} of ${r.found.events} (all in ${secs(r.drainSeconds)} after the load stopped; ${r.found.redeliveries} sent again with the same webhook-id; deliveries of events not in the database: ${r.found.phantom.length}; bad signatures: ${r.unverified})`,
  );
  check(r.found.undelivered.length === 0 && r.found.phantom.length === 0 && r.unverified === 0, 'events not delivered');
  const onAll = r.replicas.every((x) => x.found === steps[0]);
  say(`  acknowledged debts on every node: ${r.replicas.map((x) => `${x.node} ${x.found}/${steps[0]}`).join(', ')}`);
  check(onAll, 'acknowledged debts missing on a node');
  say(`  worker: ${steps[3] - r.found.notResumed.length} of ${steps[3]} timed pauses ended by the worker`);
  check(r.found.notResumed.length === 0, 'worker steps');
  const recovered = Object.entries(r.ready)
    .filter(([, s]) => s.same && s.ready)
    .map(([name]) => name);
  say(`  services recovered without a restart: ${recovered.join(', ')} of ${Object.keys(r.ready).join(', ')} (same process, /readyz 200)`);
  check(recovered.length === Object.keys(r.ready).length, 'a service did not recover on its own');
  const listening = Object.fromEntries(r.listeners.map((l) => [l.a, l.n]));
  say(
    `  LISTEN after three primaries: issuer ${listening['dms-auth-listen'] ?? 0}, dispatcher ${listening['dms-dispatcher-listen'] ?? 0} sessions on the final primary; a rotated signing key in use ${r.keySeconds === undefined ? 'NOT within 20 s' : `after ${secs(r.keySeconds)}`} (key poll 600 s); event → delivery median ${r.notifyMedianMs ?? '–'} ms after fail back (queue poll 5 s)`,
  );
  check(listening['dms-auth-listen'] >= 1 && listening['dms-dispatcher-listen'] >= 1, 'a LISTEN session missing');
  check(r.keySeconds !== undefined, 'the issuer did not hear of the rotated key');
  check(r.notifyMedianMs !== undefined && r.notifyMedianMs < 1000, 'the dispatcher was not woken by NOTIFY after the fail back');
  check(
    r.phases.slice(1, 4).every((p) => p.noPrimary.longest > 0 || p.stallSeconds > 0),
    'a disruption went unnoticed',
  );
  say(`  run ${r.run}: ${failures.length ? `FAILED: ${failures.join('; ')}` : 'passed'}`);
  return failures.length === 0;
}
