/**
 * The path a tenant takes, driven through the built images running as containers (docs/api.md
 * sections 2-5 and 7 for the calls, deploy/README.md for the process behaviour): the migration job,
 * the admin CLI in the auth image (tenant and client), a token, debts created and listed, one
 * webhook delivery to a receiver on this host, health and readiness probes and the image
 * HEALTHCHECK, then SIGTERM drains.
 */
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { once } from 'node:events';
import { Webhook } from 'standardwebhooks';
import { healthcheck, logs, podman, waitExit } from './podman.mjs';

/** @type {(ms: number) => Promise<void>} */
const pause = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Throws `message` unless `cond`.
 * @param {unknown} cond
 * @param {string} message
 * @returns {asserts cond}
 */
function must(cond, message) {
  if (!cond) throw new Error(message);
}

/** Polls `url` until it answers 200; throws after `ms`. */
async function waitFor(url, ms, what) {
  const deadline = Date.now() + ms;
  for (;;) {
    const status = await fetch(url, { signal: AbortSignal.timeout(2000) }).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`${what}: ${url} not 200 after ${ms} ms (last ${status || 'no answer'})`);
    await pause(300);
  }
}

/**
 * JSON request; throws unless the status is `expect`.
 * @param {string} method
 * @param {string} url
 * @param {{ token?: string, body?: unknown, form?: Record<string, string>, basic?: [string, string], expect?: number }} [opts]
 *   `basic`: client id and secret for HTTP Basic (RFC 6749 section 2.3.1)
 * @returns {Promise<{ json: any, headers: Headers }>}
 */
async function call(method, url, { token, body, form, basic, expect = 200 } = {}) {
  /** @type {Record<string, string>} */
  const headers = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (basic) headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(basic[0])}:${encodeURIComponent(basic[1])}`).toString('base64')}`;
  if (body) headers['content-type'] = 'application/json';
  if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
  const res = await fetch(url, { method, headers, body: body ? JSON.stringify(body) : form ? new URLSearchParams(form).toString() : undefined });
  const text = await res.text();
  must(res.status === expect, `${method} ${new URL(url).pathname}: ${res.status} (expected ${expect}) ${text.slice(0, 200)}`);
  return { json: text ? JSON.parse(text) : null, headers: res.headers };
}

/**
 * A webhook receiver listening on `bind` that verifies each delivery's Standard Webhooks signature.
 * @param {string} bind
 */
async function startReceiver(bind) {
  /** @type {{ body: any, verified: boolean }[]} */
  const received = [];
  let secret = '';
  const server = createServer((req, res) => {
    /** @type {Buffer[]} */
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let verified = true;
      try {
        new Webhook(secret).verify(body, /** @type {Record<string, string>} */ (req.headers));
      } catch {
        verified = false;
      }
      received.push({ body: JSON.parse(body), verified });
      res.writeHead(204).end();
    });
  });
  server.listen(0, bind);
  await once(server, 'listening');
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return { port, received, setSecret: (/** @type {string} */ s) => (secret = s), close: () => server.close() };
}

/**
 * Where and how the images run: started one by one with `podman run` (verify.mjs) or by
 * podman-compose (compose-verify.mjs).
 * @typedef {object} Platform
 * @property {string[]} services long-running targets (auth, api, dispatcher and any other)
 * @property {() => Promise<{ code: number, stdout: string, stderr: string }>} migrate runs the migration job once
 * @property {(service: string) => Promise<void>} start starts a service (readiness is polled here)
 * @property {(args: string[]) => Promise<{ code: number, stdout: string, stderr: string }>} admin runs the admin CLI of the auth image
 * @property {(service: string) => string} container the service's container name
 * @property {(service: string) => string} url its base URL from this host
 * @property {string} audience API_AUDIENCE the services run with
 * @property {() => Promise<{ bind: string, host: string }>} receiver address the webhook receiver
 *   listens on, and the host name the dispatcher reaches it by (asked once the services run)
 * @property {(container: string) => Promise<unknown>} terminate sends the container SIGTERM the way
 *   its platform stops it; need not wait for the exit
 */

/** Runs the admin CLI; returns the JSON object it printed last. */
async function admin(platform, args) {
  const r = await platform.admin(args);
  must(r.code === 0, `admin ${args.slice(0, 2).join(' ')} exited ${r.code}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  return JSON.parse(
    r.stdout
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .pop(),
  );
}

/**
 * Runs the whole path. `step(text)` is called with one line per completed step.
 * @param {Platform} platform
 * @param {(line: string) => void} step
 * @returns {Promise<void>} rejects with the first failing step
 */
export async function tenantPath(platform, step) {
  const { services, url, container } = platform;

  let r = await platform.migrate();
  const applied = /applied: (.*)/.exec(r.stdout)?.[1];
  must(r.code === 0 && applied, `migrate job: exit ${r.code}: ${r.stdout}${r.stderr}`);
  step(`migrate job: exit 0, ${applied.split(', ').length} migrations applied`);
  r = await platform.migrate();
  must(r.code === 0 && r.stdout.includes('schema up to date'), `second migrate run: ${r.stdout}${r.stderr}`);
  step('migrate job again: exit 0, "schema up to date"');

  for (const service of services) {
    await platform.start(service);
    await waitFor(`${url(service)}/readyz`, 90_000, service);
  }
  step(`${services.map((s) => `${s} ${url(s)}`).join(', ')} ready (GET /readyz 200)`);

  const tenant = await admin(platform, ['tenants', 'create', '--name', 'Image Check Ltd']);
  const client = await admin(platform, ['clients', 'create', '--tenant', tenant.id, '--name', 'image-check']);
  must(/^ten_/.test(tenant.id) && client.client_id && client.client_secret, 'admin CLI output lacks ids or the secret');
  step(`admin CLI (auth image): tenant ${tenant.id}, client ${client.client_id}`);

  const { json: tok } = await call('POST', `${url('auth')}/oauth/token`, {
    basic: [client.client_id, client.client_secret],
    form: { grant_type: 'client_credentials', audience: platform.audience },
  });
  must(tok.token_type === 'Bearer' && tok.access_token.split('.').length === 3, 'token response is not a bearer JWT');
  step(`token: ${tok.token_type}, expires_in ${tok.expires_in} s, scope "${tok.scope}"`);
  const token = tok.access_token;
  const api = (method, path, opts) => call(method, `${url('api')}${path}`, { token, ...opts });

  const where = await platform.receiver();
  const receiver = await startReceiver(where.bind);
  try {
    const hookUrl = `http://${where.host}:${receiver.port}/hook`;
    const { json: endpoint } = await api('POST', '/webhooks', { body: { url: hookUrl, enabled_events: ['debt.created'] }, expect: 201 });
    receiver.setSecret(endpoint.signing_secret);
    const { json: org } = await api('POST', '/organisations', { body: { name: 'Northwind Utilities' }, expect: 201 });
    const { json: cus } = await api('POST', '/customers', { body: { kind: 'individual', first_name: 'Ada', last_name: 'Lovelace' }, expect: 201 });
    const { json: debt } = await api('POST', '/debts', {
      body: { customer_id: cus.id, organisation_id: org.id, currency: 'GBP', breakdown: { principal: 1000 } },
      expect: 201,
    });
    const { json: list, headers } = await api('GET', '/debts');
    must(list.data.length === 1 && list.data[0].id === debt.id && headers.get('x-total-count') === '1', `GET /debts: ${JSON.stringify(list).slice(0, 200)}`);
    step(`debts: created ${debt.id}, GET /debts lists it (x-total-count 1)`);

    const deadline = Date.now() + 30_000;
    while (receiver.received.length === 0 && Date.now() < deadline) await pause(200);
    const [delivery] = receiver.received;
    must(delivery, 'no webhook delivery within 30 s');
    must(delivery.verified, 'webhook signature did not verify');
    must(
      delivery.body.type === 'debt.created' && delivery.body.data.object.id === debt.id,
      `unexpected webhook: ${JSON.stringify(delivery.body).slice(0, 200)}`,
    );
    step(`webhook: ${delivery.body.type} for ${debt.id} delivered by the dispatcher to ${hookUrl}, signature verified`);
  } finally {
    receiver.close();
  }

  for (const service of services) {
    for (const probe of ['/healthz', '/readyz']) await call('GET', `${url(service)}${probe}`);
    must((await healthcheck(container(service))) === 0, `${service}: podman healthcheck run is not healthy`);
    // The same probe against a port nothing listens on must report unhealthy.
    const miss = await podman(['exec', '-e', 'PORT=1', container(service), 'node', '/app/healthcheck.mjs']);
    must(miss.code === 1, `${service}: the HEALTHCHECK command exits ${miss.code} when the service does not answer`);
  }
  step(`probes: /healthz and /readyz 200, image HEALTHCHECK healthy (podman healthcheck run) and failing when nothing answers: ${services.join(', ')}`);

  step(`drain api: ${await drainWithRequestInFlight(platform, container('api'), new URL(url('api')).port, token)}`);
  for (const service of services.filter((s) => s !== 'api')) step(`drain ${service}: ${await drainIdle(platform, container(service))}`);
}

/** Checks the drain log lines and exit code; returns a one-line summary. */
async function expectCleanExit(container, started) {
  const code = await waitExit(container, 40_000);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const log = await logs(container);
  must(code === 0, `${container}: exit ${code} after SIGTERM`);
  must(log.includes('"msg":"draining"') && log.includes('"msg":"stopped"'), `${container}: no "draining"/"stopped" log lines`);
  must(!log.includes('grace period over'), `${container}: needed the whole grace period`);
  return `SIGTERM -> "draining" -> "stopped", exit 0 in ${seconds} s`;
}

/** SIGTERM with nothing in flight. */
async function drainIdle(platform, container) {
  const started = Date.now();
  const stopping = platform.terminate(container);
  const summary = await expectCleanExit(container, started);
  await stopping;
  return summary;
}

/**
 * SIGTERM while a POST /organisations is half sent: new connections are refused, the request is
 * still answered 201 once its body arrives, then the process exits 0. (Readiness turning 503 on a
 * connection that stays open is covered by test/process/drain.test.ts on the processes.)
 */
async function drainWithRequestInFlight(platform, container, port, token) {
  const body = JSON.stringify({ name: 'Drained Utilities' });
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let raw = '';
  socket.on('data', (d) => (raw += d));
  socket.on('error', () => {});
  socket.write(
    `POST /organisations HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 5)}`,
  );
  await pause(300);
  const started = Date.now();
  const stopping = platform.terminate(container);
  // The listener closes as the "draining" line is logged: probe once that line is there (a fixed
  // pause lost the race when the signal took longer than it to arrive on a busy machine).
  const drainingBy = Date.now() + 15_000;
  while (!(await logs(container)).includes('"msg":"draining"') && Date.now() < drainingBy) await pause(100);
  await pause(100);
  const refused = await new Promise((resolve) => {
    const probe = connect(port, '127.0.0.1');
    probe.once('connect', () => (probe.destroy(), resolve(false)));
    probe.once('error', () => resolve(true));
  });
  must(refused, 'api: a new connection was accepted while draining');
  socket.write(body.slice(5));
  const deadline = Date.now() + 15_000;
  while (!/\r\n\r\n[\s\S]*Drained Utilities/.test(raw) && Date.now() < deadline) await pause(50);
  socket.destroy();
  const status = /^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1];
  must(status === '201' && raw.includes('Drained Utilities'), `api: the in-flight request was answered ${status ?? 'nothing'} (expected 201)`);
  const summary = await expectCleanExit(container, started);
  await stopping;
  return `new connections refused, in-flight POST /organisations answered 201; ${summary}`;
}
