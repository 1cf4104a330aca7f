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
 * @typedef {object} Receiver
 * @property {string} url where the endpoint delivers
 * @property {(secret: string) => void} setSecret the endpoint's signing secret (`whsec_...`)
 * @property {Map<string, { type: string, objectId: string | undefined, count: number, at: number }>} deliveries by event id
 * @property {() => number} unverified deliveries whose signature did not verify
 * @property {() => Promise<void>} close
 */

/**
 * A webhook receiver on 127.0.0.1: records every delivery by its `webhook-id` (the event id).
 * @returns {Promise<Receiver>}
 */
export async function startReceiver() {
  /** @type {Webhook | undefined} */
  let verifier;
  let unverified = 0;
  /** @type {Receiver['deliveries']} */
  const deliveries = new Map();
  const server = createServer((req, res) => {
    /** @type {Buffer[]} */
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        if (!verifier) throw new Error('no secret yet');
        verifier.verify(body, {
          'webhook-id': String(req.headers['webhook-id']),
          'webhook-timestamp': String(req.headers['webhook-timestamp']),
          'webhook-signature': String(req.headers['webhook-signature']),
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
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const url = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}/hook`;
  return {
    url,
    setSecret: (secret) => void (verifier = new Webhook(secret)),
    deliveries,
    unverified: () => unverified,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve(undefined)))),
  };
}

/**
 * @typedef {object} Stats what the clients saw; times are `Date.now()` milliseconds
 * @property {number} requests requests sent, retries included
 * @property {number[]} acks time of each acknowledged write
 * @property {number[]} retries time of each 503 retried after its Retry-After
 * @property {number[]} connectionRetries time of each lost connection retried
 * @property {{ at: number, request: string, answer: string }[]} unexpected client-visible errors
 * @property {number} tokens tokens issued
 */

/**
 * What the clients saw. `acks` and `retries` carry the time of each (for the per-phase figures).
 * @returns {Stats}
 */
export function newStats() {
  return { requests: 0, acks: [], retries: [], connectionRetries: [], unexpected: [], tokens: 0 };
}

/**
 * Sends one request, retrying as a well-behaved client does.
 * @param {Stats} stats
 * @param {string} url
 * @param {RequestInit} init
 * @param {string} label the request as error lines name it (`POST /debts`)
 * @returns {Promise<any>} the parsed JSON body of the 2xx answer
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
      if (Date.now() - started > GIVE_UP_MS) throw record(stats, label, `gave up: ${err instanceof Error ? err.message : String(err)}`);
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

/**
 * Records a client-visible error.
 * @param {Stats} stats
 * @param {string} label
 * @param {string} what
 * @returns {Error} to throw
 */
function record(stats, label, what) {
  stats.unexpected.push({ at: Date.now(), request: label, answer: what });
  return new Error(`${label}: ${what}`);
}

/**
 * The API and issuer client of the run.
 * @param {Stats} stats
 * @param {{ apiUrl: string, authUrl: string, audience: string, clientId: string, clientSecret: string, token?: string }} o
 *   `token`: the bearer token for the API (set once the issuer gave one)
 */
export function createClient(stats, o) {
  /** @type {(method: string, path: string, body?: unknown, key?: string) => Promise<any>} */
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
 * @typedef {object} Unit one unit of work: its idempotency prefix, ids, and when each step was acknowledged
 * @property {string} op
 * @property {Partial<Record<'debt' | 'ready' | 'pay' | 'pause', number>>} acked
 * @property {string} [debtId]
 * @property {string} [paymentId]
 * @property {string} [pauseEnd]
 * @property {boolean} [failed]
 */

/**
 * Starts `workers` loops of units of work and a token request every 2 s.
 * @param {ReturnType<typeof createClient>} client
 * @param {Stats} stats
 * @param {{ parties: { organisationId: string, customerId: string }, runId: string, workers?: number, unitMs?: number }} o
 *   `runId` labels keys and metadata; `unitMs` is the pace per loop
 * @returns {{ units: Unit[], stop: () => Promise<void> }} `units` holds each unit's ids and acknowledgement times
 */
export function startLoad(client, stats, { parties, runId, workers = 3, unitMs = 1500 }) {
  /** @type {Unit[]} */
  const units = [];
  let stopping = false;
  /** @type {(unit: Unit, step: keyof Unit['acked'], method: string, path: string, body: unknown) => Promise<any>} */
  const write = async (unit, step, method, path, body) => {
    const out = await client.api(method, path, body, `${unit.op}-${step}`);
    unit.acked[step] = Date.now();
    stats.acks.push(Date.now());
    return out;
  };
  const loop = async (w) => {
    for (let n = 0; !stopping; n++) {
      const began = Date.now();
      /** @type {Unit} */
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
