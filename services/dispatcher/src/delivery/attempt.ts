/**
 * One delivery attempt (docs/api.md section 7): POST the event to the endpoint, signed by the
 * endpoint's scheme (docs/api.md section 15): the Standard Webhooks headers (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256>`, signed with the
 * `standardwebhooks` reference library; during the 24 h after a secret rotation one `v1,` signature
 * per secret, space separated, docs/api.md section 11), or `Ophelos-Signature: t=…,v1=<hex>`
 * (`hmac_sha256_hex`, one `v1=` per secret, with `webhook-id` kept for de-duplication), plus `Authorization: Bearer` for endpoints
 * with OAuth credentials. A 401 from the receiver drops the token and retries once with a fresh one.
 * Success is any 2xx.
 */
import { Webhook } from 'standardwebhooks';
import { describeRequestError, type Outbound } from '../http/outbound.js';
import { TokenRequestError, type ClientCredentials, type ClientCredentialsTokens } from '../oauth/client-credentials.js';
import { forwardedTraceparent } from '@dms/telemetry';
import { HEX_SIGNATURE_HEADER, hexSignatureHeader, parseRetryAfter, type AttemptResponse, type SignatureScheme } from '@dms/webhook-delivery';

/** What to send where. */
export interface AttemptTarget {
  url: string;
  /** `whsec_…` signing secrets of the endpoint, current first; each adds one signature. */
  signingSecrets: readonly string[];
  /** How deliveries are signed (docs/api.md section 15). */
  signatureScheme: SignatureScheme;
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
  const signatures = (at: Date): Record<string, string> => {
    const unix = Math.floor(at.getTime() / 1000);
    if (target.signatureScheme === 'hmac_sha256_hex') return { [HEX_SIGNATURE_HEADER]: hexSignatureHeader(target.signingSecrets, unix, body) };
    return {
      'webhook-timestamp': String(unix),
      'webhook-signature': signersOf(target.signingSecrets)
        .map((w) => w.sign(messageId, at, body))
        .join(' '),
    };
  };

  const send = async (token: string | undefined) => {
    const now = new Date();
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'webhook-id': messageId,
      ...signatures(now),
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
