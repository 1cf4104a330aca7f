/**
 * A webhook receiver for tests, on 127.0.0.1 in the test process: `/hook` verifies each delivery's
 * Standard Webhooks signature with the `standardwebhooks` package and its bearer token against the
 * tokens its own `/token` endpoint issued (OAuth 2.0 client credentials, HTTP Basic client auth);
 * both endpoints' answers can be scripted per request to simulate faults.
 * Also: `startDispatcher`, a dispatcher limited to the given tenants.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { startService, type RunningService } from '@dms/tools/processes';
import { SERVICE_ENV } from './harness.js';

/** One request received on `/hook`. */
export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  /** Every request header, names in lower case (other signature schemes read their own). */
  headers: Record<string, string>;
  event: { id: string; type: string; api_version: string; data: { object: { id: string } } } & Record<string, unknown>;
  /** Signature verified with the endpoint's signing secret. */
  verified: boolean;
  /** The `Authorization` header, if any. */
  authorization?: string;
  /** The W3C `traceparent` header, if any (docs/api.md section 11). */
  traceparent?: string;
  /** The bearer token was issued by this receiver's token endpoint and not revoked. */
  authorised: boolean;
  /** What the receiver answered. */
  answered: number | 'hang' | 'reset';
  at: number;
}

/** How `/hook` answers: a status, `hang` (never answer), or `reset` (drop the connection). */
export type HookBehaviour = (r: Omit<Received, 'answered'>, index: number) => number | 'hang' | 'reset' | { status: number; headers: Record<string, string> };

/** How `/token` answers the n-th token request (0-based). */
export type TokenBehaviour = (index: number) => { status: number; body: object | null } | 'hang';

/** A running test receiver: its webhook and token URLs, the OAuth client it accepts, and what it recorded. */
export interface Receiver {
  url: string;
  hookUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  received: Received[];
  /** Token requests: the client id presented and whether the Basic credentials matched. */
  tokenRequests: Array<{ clientId: string; ok: boolean; grantType: string | null; at: number }>;
  /** Sets the secret signatures are verified with (known after the endpoint is created). */
  setSigningSecret(secret: string): void;
  onHook(b: HookBehaviour): void;
  onToken(b: TokenBehaviour): void;
  /** Makes every token issued so far invalid (the next delivery gets a 401). */
  revokeTokens(): void;
  /** Accepts a different client (credentials rotated by the tenant). */
  setClient(clientId: string, clientSecret: string): void;
  /** Stops listening (connection refused from then on) or starts again on the same port. */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Starts a receiver; by default `/hook` answers 204 and `/token` issues 1-hour tokens. */
export async function startReceiver(opts: { expiresIn?: number } = {}): Promise<Receiver> {
  let secret = '';
  let clientId = `client_${randomBytes(4).toString('hex')}`;
  let clientSecret = randomBytes(16).toString('hex');
  const issued = new Set<string>();
  let hook: HookBehaviour = () => 204;
  let token: TokenBehaviour = () => ({
    status: 200,
    body: { access_token: `tok_${randomBytes(12).toString('hex')}`, token_type: 'Bearer', expires_in: opts.expiresIn ?? 3600 },
  });
  const hanging = new Set<ServerResponse>();
  const state = { received: [] as Received[], tokenRequests: [] as Receiver['tokenRequests'] };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req);
    if (req.url === '/token' && req.method === 'POST') {
      const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
      const [id, pw] = basic ? Buffer.from(basic[1]!, 'base64').toString().split(':').map(decodeURIComponent) : [];
      const grantType = new URLSearchParams(body).get('grant_type');
      const ok = id === clientId && pw === clientSecret && grantType === 'client_credentials';
      state.tokenRequests.push({ clientId: id ?? '', ok, grantType, at: Date.now() });
      if (!ok) return void res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'invalid_client' }));
      const answer = token(state.tokenRequests.length - 1);
      if (answer === 'hang') return void hanging.add(res);
      const access = (answer.body as { access_token?: string } | null)?.access_token;
      if (answer.status === 200 && access) issued.add(access);
      return void res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    }
    if (req.url === '/hook' && req.method === 'POST') {
      const headers = {
        'webhook-id': String(req.headers['webhook-id']),
        'webhook-timestamp': String(req.headers['webhook-timestamp']),
        'webhook-signature': String(req.headers['webhook-signature']),
      };
      let verified = false;
      try {
        new Webhook(secret).verify(body, headers);
        verified = true;
      } catch {
        verified = false;
      }
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      let event: Received['event'];
      try {
        event = JSON.parse(body);
      } catch {
        event = {} as Received['event'];
      }
      const r = {
        id: headers['webhook-id'],
        timestamp: headers['webhook-timestamp'],
        signature: headers['webhook-signature'],
        body,
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
        event,
        verified,
        authorization: req.headers.authorization,
        traceparent: req.headersDistinct.traceparent?.join(', '),
        authorised: bearer !== undefined && issued.has(bearer),
        at: Date.now(),
      };
      const answer = hook(r, state.received.length);
      const answered = typeof answer === 'object' ? answer.status : answer;
      state.received.push({ ...r, answered });
      if (answer === 'hang') return void hanging.add(res);
      if (answer === 'reset') return void req.socket.destroy();
      if (typeof answer === 'object') return void res.writeHead(answer.status, answer.headers).end();
      return void res.writeHead(answer).end();
    }
    res.writeHead(404).end();
  };

  let server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const url = `http://127.0.0.1:${port}`;

  const stop = async () => {
    for (const res of hanging) res.socket?.destroy();
    hanging.clear();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  };

  return {
    url,
    hookUrl: `${url}/hook`,
    tokenUrl: `${url}/token`,
    get clientId() {
      return clientId;
    },
    get clientSecret() {
      return clientSecret;
    },
    received: state.received,
    tokenRequests: state.tokenRequests,
    setSigningSecret: (s) => void (secret = s),
    onHook: (b) => void (hook = b),
    onToken: (b) => void (token = b),
    revokeTokens: () => issued.clear(),
    setClient: (id, sec) => {
      clientId = id;
      clientSecret = sec;
    },
    down: stop,
    up: async () => {
      server = createServer((req, res) => void handle(req, res));
      await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    },
    close: stop,
  };
}

/** Starts a dispatcher serving only `tenantIds`, with the test schedule unless `env` overrides. */
export function startDispatcher(tenantIds: string[], env: Record<string, string> = {}): Promise<RunningService> {
  return startService('dispatcher', { ...SERVICE_ENV, DISPATCH_TENANT_IDS: tenantIds.join(','), ...env });
}
