/**
 * A tiny local stand-in for the Stripe API endpoints the `stripe` provider uses (docs/api.md
 * section 18 "Payments", providers), so its tests need no network: `POST /v1/checkout/sessions`
 * (modes `payment` and `setup`), `GET /v1/checkout/sessions/:id`, `POST /v1/customers`,
 * `POST /v1/payment_intents`, `POST /v1/refunds`. It records every
 * request (method, path, form fields, `Idempotency-Key`), answers a repeated idempotency key with
 * the first answer, declines intents of the payment method `pm_card_chargeDeclined` (402, as
 * Stripe does), and lets a test complete a session (`complete`) as Stripe's hosted page would, and
 * make refunds fail (`failRefunds`): refused (400 `charge_disputed`), a Refund `failed` at once, a
 * server error (500), or the connection dropped without an answer; a failed attempt is not kept
 * under its idempotency key.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';

/** One request the fake received: its form fields flattened (`payment_intent_data[setup_future_usage]`). */
export interface FakeStripeRequest {
  method: string;
  path: string;
  fields: Record<string, string>;
  idempotencyKey: string | undefined;
  authorization: string | undefined;
}

type Json = Record<string, unknown>;

/** How `POST /v1/refunds` fails while set: refused (400), a Refund `failed` at once (200), a server error (500), no answer. */
export type RefundFailure = 'refuse' | 'fail' | 'server_error' | 'hang_up';

/** The fake server: its port, recorded requests, sessions, and `complete`/`close`. */
export interface FakeStripe {
  port: number;
  requests: FakeStripeRequest[];
  sessions: Map<string, Json>;
  /** While set, every refund fails this way (and is not created). */
  failRefunds: RefundFailure | undefined;
  /** Completes session `id` as Stripe's page would: an intent paid by a card ending `last4`, a customer when it saves the method. */
  complete(id: string, last4?: string): Json;
  close(): Promise<void>;
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

/** Starts the fake on a free port of 127.0.0.1. */
export async function startFakeStripe(): Promise<FakeStripe> {
  const requests: FakeStripeRequest[] = [];
  const sessions = new Map<string, Json>();
  const intents = new Map<string, Json>();
  const setupIntents = new Map<string, Json>();
  const answered = new Map<string, { status: number; body: Json }>();

  const handle = (req: IncomingMessage, fields: Record<string, string>, path: string): { status: number; body: Json } => {
    const session = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && session) {
      const s = sessions.get(session[1]!);
      if (!s) return { status: 404, body: { error: { type: 'invalid_request_error', message: 'No such checkout.session' } } };
      if (typeof s.payment_intent === 'string' && fields['expand[0]'] === 'payment_intent.payment_method')
        return { status: 200, body: { ...s, payment_intent: intents.get(s.payment_intent) } };
      if (typeof s.setup_intent === 'string' && fields['expand[0]'] === 'setup_intent.payment_method')
        return { status: 200, body: { ...s, setup_intent: setupIntents.get(s.setup_intent) } };
      return { status: 200, body: s };
    }
    if (req.method !== 'POST') return { status: 404, body: { error: { type: 'invalid_request_error', message: 'Unrecognized request URL' } } };
    const metadata = (prefix: string) =>
      Object.fromEntries(
        Object.entries(fields)
          .filter(([k]) => k.startsWith(`${prefix}[`))
          .map(([k, v]) => [k.slice(prefix.length + 1, -1), v]),
      );
    if (path === '/v1/checkout/sessions') {
      const s: Json = {
        id: id('cs_test'),
        object: 'checkout.session',
        mode: fields.mode,
        amount_total: Number(fields['line_items[0][price_data][unit_amount]']),
        currency: fields['line_items[0][price_data][currency]'],
        metadata: metadata('metadata'),
        payment_status: fields.mode === 'setup' ? 'no_payment_required' : 'unpaid',
        status: 'open',
        customer: fields.customer ?? null,
        payment_intent: null,
        setup_intent: null,
        url: `https://checkout.stripe.com/c/pay/${id('cs_test')}`,
      };
      sessions.set(s.id as string, s);
      return { status: 200, body: s };
    }
    if (path === '/v1/customers') return { status: 200, body: { id: id('cus'), object: 'customer', metadata: metadata('metadata') } };
    if (path === '/v1/payment_intents') {
      const declined = fields.payment_method === 'pm_card_chargeDeclined';
      const pi: Json = {
        id: id('pi'),
        object: 'payment_intent',
        amount: Number(fields.amount),
        currency: fields.currency,
        customer: fields.customer,
        payment_method: fields.payment_method,
        metadata: metadata('metadata'),
        status: declined ? 'requires_payment_method' : 'succeeded',
      };
      intents.set(pi.id as string, pi);
      if (declined)
        return { status: 402, body: { error: { type: 'card_error', code: 'card_declined', message: 'Your card was declined.', payment_intent: pi } } };
      return { status: 200, body: pi };
    }
    if (path === '/v1/refunds') {
      const pi = intents.get(fields.payment_intent ?? '');
      if (!pi) return { status: 404, body: { error: { type: 'invalid_request_error', message: 'No such payment_intent' } } };
      return { status: 200, body: { id: id('re'), object: 'refund', amount: Number(fields.amount), payment_intent: pi.id, status: 'succeeded' } };
    }
    return { status: 404, body: { error: { type: 'invalid_request_error', message: 'Unrecognized request URL' } } };
  };

  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const fields = Object.fromEntries(new URLSearchParams(req.method === 'GET' ? url.search : raw));
      const key = req.headers['idempotency-key'] as string | undefined;
      requests.push({ method: req.method!, path: url.pathname, fields, idempotencyKey: key, authorization: req.headers.authorization });
      const failure = url.pathname === '/v1/refunds' ? fake.failRefunds : undefined;
      if (failure === 'hang_up') return req.socket.destroy();
      if (failure) {
        const refused = { error: { type: 'invalid_request_error', code: 'charge_disputed', message: 'This charge is disputed and cannot be refunded.' } };
        const failed = { id: id('re'), object: 'refund', amount: Number(fields.amount), payment_intent: fields.payment_intent, status: 'failed' };
        const [status, body] =
          failure === 'refuse'
            ? [400, refused]
            : failure === 'fail'
              ? [200, failed]
              : [500, { error: { type: 'api_error', message: 'Something went wrong.' } }];
        res.writeHead(status, { 'Content-Type': 'application/json', 'Request-Id': id('req') });
        return res.end(JSON.stringify(body));
      }
      const again = key && req.method === 'POST' ? answered.get(`${url.pathname}:${key}`) : undefined;
      const answer = again ?? handle(req, fields, url.pathname);
      if (key && req.method === 'POST') answered.set(`${url.pathname}:${key}`, answer);
      res.writeHead(answer.status, { 'Content-Type': 'application/json', 'Request-Id': id('req') });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));

  const fake: FakeStripe = {
    port: (server.address() as AddressInfo).port,
    requests,
    sessions,
    failRefunds: undefined,
    complete(sessionId, last4 = '4242') {
      const s = sessions.get(sessionId)!;
      const method = { id: id('pm'), object: 'payment_method', card: { last4 } };
      if (s.mode === 'setup') {
        const si: Json = { id: id('seti'), object: 'setup_intent', status: 'succeeded', customer: s.customer, payment_method: method };
        setupIntents.set(si.id as string, si);
        return Object.assign(s, { setup_intent: si.id, status: 'complete' });
      }
      const saves = s.metadata && (s.metadata as Json).save_method === 'true';
      const customer = saves ? id('cus') : null;
      const pi: Json = {
        id: id('pi'),
        object: 'payment_intent',
        status: 'succeeded',
        customer,
        payment_method: method,
      };
      intents.set(pi.id as string, pi);
      Object.assign(s, { payment_intent: pi.id, customer, payment_status: 'paid', status: 'complete' });
      return s;
    },
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
  return fake;
}
