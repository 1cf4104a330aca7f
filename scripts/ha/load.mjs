/**
 * The client side of `npm run ha:verify`: a steady load of idempotent writes through the API (per
 * unit of work a debt created, made ready, paid in part and paused for a while, each with its own
 * `Idempotency-Key`), token requests to the issuer, and a webhook receiver that verifies each
 * delivery's Standard Webhooks signature. Clients behave as docs/api.md section 3 asks: a 503 is
 * retried after its `Retry-After` with the same key, a lost connection after a second; anything
 * else is a client-visible error and fails the run.
 */
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { sleep } from './proc.mjs';

/** How long one request is retried before the run counts it as failed, milliseconds. */
const GIVE_UP_MS = 180_000;
/** How long a debt stays paused; the worker resumes it (docs/api.md section 9). */
export const PAUSE_SECONDS = 30;

/**
 * A webhook receiver on 127.0.0.1: records every delivery by its `webhook-id` (the event id).
 * @returns { url, setSecret(s), deliveries: Map<id, {type, objectId, count, at}>, unverified(), close() }
 */
export async function startReceiver() {
  let verifier;
  let unverified = 0;
  const deliveries = new Map();
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        verifier.verify(body, {
          'webhook-id': req.headers['webhook-id'],
          'webhook-timestamp': req.headers['webhook-timestamp'],
          'webhook-signature': req.headers['webhook-signature'],
        });
      } catch {
        unverified++;
        return void res.writeHead(400).end();
      }
      const event = JSON.parse(body);
      const seen = deliveries.get(event.id);
      if (seen) seen.count++;
      else deliveries.set(event.id, { type: event.type, objectId: event.data?.object?.id, count: 1, at: Date.now() });
      res.writeHead(204).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/hook`;
  return {
    url,
    setSecret: (secret) => void (verifier = new Webhook(secret)),
    deliveries,
    unverified: () => unverified,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/**
 * What the clients saw. `acks` and `retries` carry the time of each (for the per-phase figures).
 */
export function newStats() {
  return { requests: 0, acks: [], retries: [], connectionRetries: [], unexpected: [], tokens: 0 };
}

/**
 * Sends one request, retrying as a well-behaved client does.
 * @returns the parsed JSON body of the 2xx answer
 * @throws after recording a client-visible error (any other status) or giving up
 */
async function send(stats, url, init, label) {
  const started = Date.now();
  for (;;) {
    stats.requests++;
    let res;
    try {
      res = await fetch(url, { ...init, signal: AbortSignal.timeout(90_000) });
    } catch (err) {
      stats.connectionRetries.push(Date.now());
      if (Date.now() - started > GIVE_UP_MS) throw record(stats, label, `gave up: ${err.message}`);
      await sleep(1000);
      continue;
    }
    const text = await res.text();
    if (res.ok) return text ? JSON.parse(text) : undefined;
    const retryAfter = Number(res.headers.get('retry-after'));
    if (res.status === 503 && retryAfter > 0) {
      stats.retries.push(Date.now());
      if (Date.now() - started > GIVE_UP_MS) throw record(stats, label, 'gave up: still 503');
      await sleep(retryAfter * 1000);
      continue;
    }
    throw record(stats, label, `${res.status} ${text.slice(0, 300)}`);
  }
}

function record(stats, label, what) {
  stats.unexpected.push({ at: Date.now(), request: label, answer: what });
  return new Error(`${label}: ${what}`);
}

/**
 * The API and issuer client of the run.
 * @param o.apiUrl, o.authUrl, o.audience, o.clientId, o.clientSecret; o.token the bearer token for the API
 */
export function createClient(stats, o) {
  const api = (method, path, body, key) =>
    send(
      stats,
      `${o.apiUrl}${path}`,
      {
        method,
        headers: { authorization: `Bearer ${o.token}`, 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      },
      `${method} ${path}`,
    );
  const token = () =>
    send(
      stats,
      `${o.authUrl}/oauth/token`,
      {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${o.clientId}:${o.clientSecret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', audience: o.audience }).toString(),
      },
      'POST /oauth/token',
    );
  return { api, token };
}

/**
 * Starts `workers` loops of units of work and a token request every 2 s.
 * @param o.parties { organisationId, customerId }; o.runId labels keys and metadata; o.unitMs pace per loop
 * @returns { units, stop() } — `units` holds each unit's ids and acknowledgement times
 */
export function startLoad(client, stats, { parties, runId, workers = 3, unitMs = 1500 }) {
  const units = [];
  let stopping = false;
  const write = async (unit, step, method, path, body) => {
    const out = await client.api(method, path, body, `${unit.op}-${step}`);
    unit.acked[step] = Date.now();
    stats.acks.push(Date.now());
    return out;
  };
  const loop = async (w) => {
    for (let n = 0; !stopping; n++) {
      const began = Date.now();
      const unit = { op: `${runId}-${w}-${n}`, acked: {} };
      units.push(unit);
      try {
        const body = { customer_id: parties.customerId, organisation_id: parties.organisationId, currency: 'GBP', breakdown: { principal: 10000 } };
        unit.debtId = (await write(unit, 'debt', 'POST', '/debts', { ...body, metadata: { ha_op: unit.op } })).id;
        await write(unit, 'ready', 'POST', `/debts/${unit.debtId}/ready`, {});
        const payment = { amount: 2500, currency: 'GBP', metadata: { ha_op: unit.op } };
        unit.paymentId = (await write(unit, 'pay', 'POST', `/debts/${unit.debtId}/payments`, payment)).id;
        unit.pauseEnd = new Date(Date.now() + PAUSE_SECONDS * 1000).toISOString();
        await write(unit, 'pause', 'POST', `/debts/${unit.debtId}/pause`, { end_at: unit.pauseEnd });
      } catch {
        unit.failed = true; // recorded in stats.unexpected
      }
      await sleep(Math.max(0, unitMs - (Date.now() - began)));
    }
  };
  const tokens = async () => {
    while (!stopping) {
      await client.token().then(
        () => stats.tokens++,
        () => {},
      );
      await sleep(2000);
    }
  };
  const running = [...Array.from({ length: workers }, (_, w) => loop(w)), tokens()];
  return {
    units,
    async stop() {
      stopping = true;
      await Promise.all(running);
    },
  };
}
