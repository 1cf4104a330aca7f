/**
 * One delivery attempt (docs/api.md section 7): POST the event to the endpoint with the Standard
 * Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256>`,
 * signed with the `standardwebhooks` reference library; during the 24 h after a secret rotation one
 * `v1,` signature per secret, space separated, docs/api.md section 11), plus `Authorization: Bearer` for endpoints
 * with OAuth credentials. A 401 from the receiver drops the token and retries once with a fresh one.
 * Success is any 2xx.
 */
import { Webhook } from 'standardwebhooks';
import { describeRequestError, type Outbound } from '../http/outbound.js';
import { TokenRequestError, type ClientCredentials, type ClientCredentialsTokens } from '../oauth/client-credentials.js';
import { forwardedTraceparent } from '@dms/telemetry';
import { parseRetryAfter, type AttemptResponse } from '@dms/webhook-delivery';

/** What to send where. */
export interface AttemptTarget {
  url: string;
  /** `whsec_…` signing secrets of the endpoint, current first; each adds one signature. */
  signingSecrets: readonly string[];
  credentials?: ClientCredentials;
}

/** The result of one attempt, ready to be recorded. */
export interface AttemptResult extends AttemptResponse {
  ok: boolean;
  /** The receiver's Retry-After, seconds. */
  retryAfterSeconds?: number;
}

/** What an attempt needs besides its target. */
export interface AttemptDeps {
  outbound: Outbound;
  tokens: ClientCredentialsTokens;
  timeoutMs: number;
}

const USER_AGENT = 'dms-webhooks/1.0 (+https://www.standardwebhooks.com)';

/** Signers by secrets list: a batch's deliveries to one endpoint share its list, so its keys are decoded once. */
const signerCache = new WeakMap<readonly string[], Webhook[]>();

function signersOf(secrets: readonly string[]): Webhook[] {
  let signers = signerCache.get(secrets);
  if (!signers) signerCache.set(secrets, (signers = secrets.map((secret) => new Webhook(secret))));
  return signers;
}

/**
 * Sends `body` (the rendered event JSON) as message `messageId` (the event id: the same on every
 * retry, so receivers can de-duplicate).
 * @param signal aborts the attempt (lease running out, shutdown)
 * @param traceparent the trace context stored with the event: the request carries a child of the
 *   delivery span when traces are on, else this one (docs/api.md section 11)
 */
export async function deliveryAttempt(
  deps: AttemptDeps,
  target: AttemptTarget,
  messageId: string,
  body: string,
  signal?: AbortSignal,
  traceparent?: string | null,
): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const signers = signersOf(target.signingSecrets);

  const send = async (token: string | undefined) => {
    const now = new Date();
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'webhook-id': messageId,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': signers.map((w) => w.sign(messageId, now, body)).join(' '),
    };
    if (token) headers.authorization = `Bearer ${token}`;
    const forwarded = forwardedTraceparent(traceparent);
    if (forwarded) headers.traceparent = forwarded;
    return deps.outbound.post(target.url, { headers, body, signal });
  };

  try {
    let token = target.credentials ? await deps.tokens.token(target.credentials, { signal }) : undefined;
    let res = await send(token);
    if (res.status === 401 && target.credentials) {
      // Exactly one refetch: the receiver may have revoked or rotated the token early.
      token = await deps.tokens.token(target.credentials, { signal, staleToken: token });
      res = await send(token);
    }
    const ok = res.status >= 200 && res.status < 300;
    return {
      ok,
      responseStatus: res.status,
      error: ok ? null : `receiver answered ${res.status}`,
      durationMs: elapsed(),
      retryAfterSeconds: ok ? undefined : parseRetryAfter(res.headers['retry-after']),
    };
  } catch (err) {
    const error = err instanceof TokenRequestError ? err.message : describeRequestError(err, deps.timeoutMs);
    return { ok: false, responseStatus: null, error, durationMs: elapsed() };
  }
}
