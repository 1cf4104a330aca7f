/**
 * Reading and authenticating provider callbacks (docs/api.md section 13): the raw body of a
 * request (the callbacks are mounted before the JSON body parser), the parameters of a Vonage
 * webhook (query string, JSON or form body), and the bearer secret of forwarded inbound mail,
 * compared in constant time.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import type { Request } from 'express';
import { ApiError } from '@dms/errors';

/** Largest callback body read, bytes (an email with its quoted original). */
export const MAX_CALLBACK_BYTES = 5 * 1024 * 1024;

/**
 * The request body as bytes.
 * @throws ApiError 413 `body_too_large` past `MAX_CALLBACK_BYTES`
 */
export async function rawBody(req: Request): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_CALLBACK_BYTES) throw new ApiError('body_too_large', `A callback body is at most ${MAX_CALLBACK_BYTES} bytes.`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** A Vonage webhook's parameters: the query string (GET-style) merged with a JSON or form body. */
export async function webhookParams(req: Request): Promise<Record<string, string>> {
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.query)) if (typeof v === 'string') params[k] = v;
  const body = (await rawBody(req)).toString('utf8').trim();
  if (!body) return params;
  if (body.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      throw new ApiError('invalid_json', 'The callback body is not valid JSON.');
    }
    for (const [k, v] of Object.entries(parsed as Record<string, unknown>))
      if (v !== null && v !== undefined) params[k] = typeof v === 'string' ? v : JSON.stringify(v);
  } else {
    for (const [k, v] of new URLSearchParams(body)) params[k] = v;
  }
  return params;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * Checks `Authorization: Bearer <secret>` of forwarded inbound mail.
 * @throws ApiError 401 `invalid_token` when the secret is not configured, missing or wrong
 */
export function requireBearer(req: Request, secret: string): void {
  const given = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1] ?? '';
  if (!secret || !timingSafeEqual(digest(given), digest(secret))) throw new ApiError('invalid_token', 'The inbound-mail secret is missing or wrong.');
}
