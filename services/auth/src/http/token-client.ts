/**
 * The `client_id` a token request names (RFC 6749 section 2.3.1), found before oidc-provider reads
 * the request, so the failure budget of docs/api.md section 1 can be kept per client and address:
 * from HTTP Basic (`client_secret_basic`, the id form-urlencoded), else from the form body
 * (`client_secret_post`). Reading the body consumes the request, so the caller gets a fresh
 * `IncomingMessage` on the same socket holding the same bytes, which oidc-provider then reads as
 * it would have read the original.
 */
import { IncomingMessage } from 'node:http';

/** Largest body read (oidc-provider refuses anything larger with `invalid_request` itself). */
const MAX_BODY_BYTES = 56 * 1024;
/** Longest client id kept in a budget key; longer ones are cut (no client id is that long). */
const MAX_CLIENT_ID = 128;

/** The client id of `Authorization: Basic …`, or undefined. */
function basicClientId(header: string | undefined): string | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    return decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
  } catch {
    return decoded.slice(0, colon);
  }
}

/** A request like `req` (same socket, method, URL and headers) whose body is `body`. */
function replay(req: IncomingMessage, body: Buffer): IncomingMessage {
  const copy = new IncomingMessage(req.socket);
  copy.method = req.method;
  copy.url = req.url;
  copy.headers = req.headers;
  copy.rawHeaders = req.rawHeaders;
  copy.httpVersion = req.httpVersion;
  copy.httpVersionMajor = req.httpVersionMajor;
  copy.httpVersionMinor = req.httpVersionMinor;
  // Complete, as the original was: an incomplete message destroys its socket when it ends.
  copy.complete = true;
  copy.push(body);
  copy.push(null);
  return copy;
}

/**
 * The client id of a token request and the request to hand on.
 * @returns `clientId` ('' when the request names none, or its body is over MAX_BODY_BYTES: such a
 *   request fails at oidc-provider and counts against the address's anonymous budget) and
 *   `request`, `req` itself when its body was not read, else a replay of it
 */
export async function tokenClient(req: IncomingMessage): Promise<{ clientId: string; request: IncomingMessage }> {
  const basic = basicClientId(req.headers.authorization);
  if (basic !== undefined) return { clientId: basic.slice(0, MAX_CLIENT_ID), request: req };
  if (!/^application\/x-www-form-urlencoded\b/i.test(req.headers['content-type'] ?? '')) return { clientId: '', request: req };
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    }
  } catch {
    // The client went away mid-body: nothing will be answered; an empty replay fails at oidc-provider.
    return { clientId: '', request: replay(req, Buffer.alloc(0)) };
  }
  // Over the limit: an empty replay, which oidc-provider refuses by its Content-Length as too large.
  if (size > MAX_BODY_BYTES) return { clientId: '', request: replay(req, Buffer.alloc(0)) };
  const body = Buffer.concat(chunks);
  const clientId = new URLSearchParams(body.toString('utf8')).get('client_id') ?? '';
  return { clientId: clientId.slice(0, MAX_CLIENT_ID), request: replay(req, body) };
}
