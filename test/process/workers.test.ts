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
import { serviceSet } from '../support/services.js';

const services = serviceSet();
const start = services.start;

afterAll(async () => {
  await services.stopAll();
  await closeHarness();
});

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

async function waitFor<T>(what: string, probe: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(100);
  }
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
    const workers = await waitFor('two workers', () => (childrenOf(primary).length === 2 ? childrenOf(primary) : undefined));

    // Fresh connections are spread over the workers (the primary hands them out in turn).
    const served = 40;
    const statuses = await Promise.all(
      Array.from({ length: served }, () =>
        fetch(`${api.url}/organisations`, { headers: { authorization: `Bearer ${token}`, connection: 'close' } }).then((r) => r.status),
      ),
    );
    expect(statuses.every((s) => s === 200)).toBe(true);
    const metrics = await (await fetch(`${api.url}/metrics`)).text();
    expect(requestCount(metrics, '/organisations')).toBe(served);
    expect(metrics).toMatch(/^nodejs_heap_size_used_bytes\{service="api"\} \d+/m);

    process.kill(workers[0]!, 'SIGKILL');
    const replaced = await waitFor('a replacement worker', () => {
      const now = childrenOf(primary);
      return now.length === 2 && !now.includes(workers[0]!) ? now : undefined;
    });
    expect(replaced).toContain(workers[1]);
    // The primary's line (a SIGKILLed worker's own buffered log lines may be lost with it).
    await waitFor('the replacement to listen', () => (readFileSync(api.logFile, 'utf8').includes('"msg":"replacement worker listening"') ? true : undefined));
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
    await waitFor('two workers', () => (childrenOf(auth.child.pid!).length === 2 ? true : undefined));
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
    const metrics = await (await fetch(`${auth.url}/metrics`)).text();
    const line = /^oauth_tokens_issued_total\{grant_type="client_credentials",service="auth"\} (\d+)/m.exec(metrics);
    expect(Number(line?.[1])).toBe(issued);
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
    await waitFor('both workers listening', () => (readFileSync(api.logFile, 'utf8').includes('"msg":"workers listening"') ? true : undefined));
    const exit = exited(api);
    // The primary and both workers receive it; the primary passes it on to each worker as well.
    process.kill(-api.child.pid!, 'SIGTERM');
    expect(await exit).toBe(0);
    const log = readFileSync(api.logFile, 'utf8');
    expect(log.split('"msg":"draining"').length - 1).toBe(2);
    expect(log.split('"msg":"stopped"').length - 1).toBe(2);
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
    await waitFor('two workers', () => (childrenOf(child.pid!).length === 2 ? true : undefined));
    expect(output).not.toContain('"msg":"workers listening"');
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(output).toContain('"msg":"stopping workers"');
  });
});
