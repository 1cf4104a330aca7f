/**
 * Writes a JSON response body that is already text (a compiled serializer's output) with the
 * headers Express's `res.send` would set: `Content-Type: application/json; charset=utf-8`,
 * `Content-Length`, a weak `ETag` of the body, and `304 Not Modified` without a body when the
 * request's `If-None-Match` matches it (RFC 9110 sections 8.8.3 and 13.1.2).
 *
 * Why not `res.send`: it copies every body of 1,000 characters or more into a Buffer before
 * writing it. A list page is about 70 KB, so that is one large off-heap allocation per request,
 * which V8 counts as external memory pressure (more full collections, a higher resident set);
 * `res.end(text)` hands the string to the socket as it is.
 */
import etag from 'etag';
import type { Request, Response } from 'express';

/**
 * Sends `text` as the JSON body of `res` (status already set), or a 304 when the client's cached
 * copy is current. HEAD requests get the headers only.
 */
export function sendJsonText(req: Request, res: Response, text: string): void {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text, 'utf8'));
  // The same weak tag as Express's default `etag fn` (the `etag` package over the body's bytes).
  if (!res.getHeader('ETag')) res.setHeader('ETag', etag(text, { weak: true }));
  if (req.fresh) {
    res.status(304);
    res.removeHeader('Content-Type');
    res.removeHeader('Content-Length');
    res.end();
    return;
  }
  if (req.method === 'HEAD') res.end();
  else res.end(text, 'utf8');
}
