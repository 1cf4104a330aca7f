/**
 * WEB_CONCURRENCY: the API and the issuer run that many worker processes behind one port
 * (README, "Running more than one worker per host"). Requests are served by every worker,
 * `/metrics` answers for all of them together, a worker that dies is replaced, and SIGTERM to the
 * primary drains every worker and exits 0: also when a worker is still starting, and when the
 * signal reaches the whole process group (a terminal's Ctrl-C), so each worker receives it twice.
 */
import { afterAll, describe, expect, test } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import type { RunningService } from '@dms/tools/processes';
import { AUDIENCE, SERVICE_ENV, closeHarness, newTenant, signedInTenant } from '../support/harness.js';
import { eventually } from '../support/eventually.js';
import { serviceSet } from '../support/services.js';

const services = serviceSet();
const start = services.start;

afterAll(async () => {
  await services.stopAll();
  await closeHarness();
});

/** Pids of the live processes whose parent is `pid` (from /proc). */
function childrenOf(pid: number): number[] {
  const kids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === pid && fields[0] !== 'Z') kids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return kids.sort();
}

/** Sum of `http_request_duration_seconds_count` for `route` in the exposition `text`. */
function requestCount(text: string, route: string): number {
  return text
    .split('\n')
    .filter((l) => l.startsWith('http_request_duration_seconds_count{') && l.includes(`route="${route}"`) && l.includes('status="200"'))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

const exited = (s: RunningService) => new Promise<number | null>((resolve) => s.child.once('exit', (code) => resolve(code)));

describe('api with WEB_CONCURRENCY=2', () => {
  test('two workers serve one port; /metrics sums them; a killed worker is replaced; SIGTERM stops all, exit 0', async () => {
    const { token } = await signedInTenant();
    const api = await start('api', { ...SERVICE_ENV, WEB_CONCURRENCY: '2' });
    const primary = api.child.pid!;
    const workers = await eventually(() => (childrenOf(primary).length === 2 ? childrenOf(primary) : undefined), 'two workers');

    // Fresh connections are spread over the workers (the primary hands them out in turn).
    const served = 40;
    const statuses = await Promise.all(
      Array.from({ length: served }, () =>
        fetch(`${api.url}/organisations`, { headers: { authorization: `Bearer ${token}`, connection: 'close' } }).then((r) => r.status),
      ),
    );
    expect(statuses.every((s) => s === 200)).toBe(true);
    // A worker counts a request when its answer is finished, which the client may see first, and
    // the primary gathers the workers' registries over IPC (a 500 when one is slow to answer, as
    // under load): read until every request is counted.
    const metrics = await eventually(async () => {
      const text = await (await fetch(`${api.url}/metrics`)).text();
      expect(requestCount(text, '/organisations')).toBe(served);
      return text;
    }, `/metrics to count the ${served} requests`);
    expect(metrics).toMatch(/^nodejs_heap_size_used_bytes\{service="api"\} \d+/m);

    process.kill(workers[0]!, 'SIGKILL');
    const replaced = await eventually(() => {
      const now = childrenOf(primary);
      return now.length === 2 && !now.includes(workers[0]!) ? now : undefined;
    }, 'a replacement worker');
    expect(replaced).toContain(workers[1]);
    // The primary's line (a SIGKILLed worker's own buffered log lines may be lost with it).
    await eventually(() => readFileSync(api.logFile, 'utf8').includes('"msg":"replacement worker listening"'), 'the replacement to listen');
    const after = await fetch(`${api.url}/organisations`, { headers: { authorization: `Bearer ${token}` } });
    expect(after.status).toBe(200);

    const exit = exited(api);
    api.child.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(childrenOf(primary)).toEqual([]);
    const log = readFileSync(api.logFile, 'utf8');
    expect(log).toContain('"msg":"worker died"');
    expect(log.split('"msg":"stopped"').length - 1).toBe(2);
  });
});

describe('issuer with WEB_CONCURRENCY=2', () => {
  test('tokens from both workers; /metrics counts every issued token once', async () => {
    const tenant = await newTenant();
    const auth = await start('auth', { ...SERVICE_ENV, WEB_CONCURRENCY: '2' });
    await eventually(() => childrenOf(auth.child.pid!).length === 2, 'two workers');
    const basic = Buffer.from(`${tenant.clientId}:${tenant.clientSecret}`).toString('base64');
    const issued = 10;
    const tokens = await Promise.all(
      Array.from({ length: issued }, () =>
        fetch(`${auth.url}/oauth/token`, {
          method: 'POST',
          headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded', connection: 'close' },
          body: new URLSearchParams({ grant_type: 'client_credentials', audience: AUDIENCE }).toString(),
        }).then((r) => r.status),
      ),
    );
    expect(tokens).toEqual(Array(issued).fill(200));
    await eventually(async () => {
      const metrics = await (await fetch(`${auth.url}/metrics`)).text();
      const line = /^oauth_tokens_issued_total\{grant_type="client_credentials",service="auth"\} (\d+)/m.exec(metrics);
      expect(Number(line?.[1])).toBe(issued);
      return true;
    }, `/metrics to count the ${issued} tokens`);
    const exit = exited(auth);
    auth.child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });
});

describe('stop signals and WEB_CONCURRENCY=2', () => {
  test('SIGTERM as soon as the first worker answers, the other still starting: every worker stops, exit 0', async () => {
    // startService returns once /readyz answers, i.e. once one worker listens.
    const auth = await start('auth', { ...SERVICE_ENV, WEB_CONCURRENCY: '2' });
    const exit = exited(auth);
    auth.child.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(childrenOf(auth.child.pid!)).toEqual([]);
  });

  test('SIGTERM to the whole process group (as Ctrl-C in a terminal): each worker drains once, exit 0', async () => {
    const api = await start('api', { ...SERVICE_ENV, WEB_CONCURRENCY: '2' }, { processGroup: true });
    await eventually(() => readFileSync(api.logFile, 'utf8').includes('"msg":"workers listening"'), 'both workers listening');
    const exit = exited(api);
    // The primary and both workers receive it; the primary passes it on to each worker as well.
    process.kill(-api.child.pid!, 'SIGTERM');
    expect(await exit).toBe(0);
    // The primary's exit can come before the piped output of its workers reached the log file (the
    // harness copies it asynchronously): wait for both workers' last line, then count exactly.
    const count = (msg: string) => readFileSync(api.logFile, 'utf8').split(`"msg":"${msg}"`).length - 1;
    await eventually(() => count('stopped') >= 2, 'both workers to log "stopped"');
    expect(count('draining')).toBe(2);
    expect(count('stopped')).toBe(2);
  });
});

describe('SIGTERM while workers still boot', () => {
  test('workers ended by the signal before they listened count as stopped cleanly: exit 0', async () => {
    const { spawn } = await import('node:child_process');
    const { join } = await import('node:path');
    const { REPO_ROOT, freePort } = await import('@dms/tools/processes');
    const child = spawn(process.execPath, [join(REPO_ROOT, 'services', 'auth', 'dist', 'server.js')], {
      env: { ...process.env, ...SERVICE_ENV, NODE_ENV: 'test', WEB_CONCURRENCY: '2', PORT: String(await freePort()) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // Both workers forked; neither has loaded oidc-provider and listened yet.
    await eventually(() => childrenOf(child.pid!).length === 2, 'two workers');
    expect(output).not.toContain('"msg":"workers listening"');
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(output).toContain('"msg":"stopping workers"');
  });
});
