/**
 * SSRF protection at delivery, through real name resolution (docs/api.md section 7): endpoints
 * whose host is a DNS name that resolves to a loopback address (`localhost`, and this machine's
 * own name, through the system resolver the dispatcher uses) were accepted at registration by an
 * API that allows private targets (as a name that resolved to a public address then, and to a
 * private one now, would be); a dispatcher that does not allow them resolves the name again as it
 * connects, refuses each attempt with the range it found, for the endpoint URL and for an OAuth
 * token URL alike, and never opens a connection: the listener on the loopback port sees none.
 */
import { createServer, type Server } from 'node:net';
import { hostname } from 'node:os';
import { lookup } from 'node:dns/promises';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { RunningService } from '@dms/tools/processes';
import { nonPublicRange } from '@dms/ssrf';
import { closeHarness, signedInTenant, testDb } from '../support/harness.js';
import { eventually } from '../support/eventually.js';
import { startDispatcher } from '../support/webhook-receiver.js';

let listener: Server;
let connections = 0;
let port = 0;
let dispatcher: RunningService | undefined;

beforeAll(async () => {
  // Dual-stack: `localhost` may resolve to ::1 first.
  listener = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '::', resolve));
  port = (listener.address() as { port: number }).port;
});

afterAll(async () => {
  await dispatcher?.stop();
  await new Promise((resolve) => listener.close(resolve));
  await closeHarness();
});

test('names that resolve to loopback are refused at delivery, for URLs and token URLs, with no connection made', async () => {
  for (const name of ['localhost', hostname()]) expect(nonPublicRange((await lookup(name)).address)).not.toBeNull();
  const t = await signedInTenant();
  const register = async (body: object) => (await t.api.post('/webhooks', { enabled_events: ['*'], ...body }).expect(201)).body.id as string;
  const endpoints = {
    localhost: await register({ url: `https://localhost:${port}/hook` }),
    machine: await register({ url: `https://${hostname()}:${port}/hook` }),
    token: await register({
      url: `https://${hostname()}:${port}/hook`,
      credentials: { oauth2: { token_url: `https://localhost:${port}/token`, client_id: 'c', client_secret: 's3cret-value' } },
    }),
  };
  dispatcher = await startDispatcher([t.tenant.tenantId], { ALLOW_PRIVATE_WEBHOOK_TARGETS: 'false' });
  await t.api.post('/organisations', { name: 'Rebound Ltd' }).expect(201);

  const attempts = await eventually(
    async () => {
      const rows = (await testDb()('webhook_delivery_attempts as a')
        .join('webhook_deliveries as d', 'd.id', 'a.delivery_id')
        .where('d.tenant_id', t.tenant.tenantId)
        .select('d.endpoint_id', 'a.status', 'a.error')) as Array<{ endpoint_id: string; status: string; error: string | null }>;
      for (const id of Object.values(endpoints)) if (!rows.some((r) => r.endpoint_id === id)) throw new Error(`no attempt yet for ${id}`);
      return rows;
    },
    'an attempt for each endpoint',
    30_000,
  );
  for (const a of attempts) {
    expect(a.status).toBe('failed');
    expect(a.error).toMatch(/^(token request failed: )?refused: \S+ resolves to \S+ \((loopback|unspecified)\), which is not a public address$/);
  }
  const tokenAttempt = attempts.find((a) => a.endpoint_id === endpoints.token)!;
  expect(tokenAttempt.error).toMatch(/^token request failed: refused: localhost resolves to/);
  expect(connections).toBe(0);
});
