/**
 * Request fingerprints for idempotency (docs/api.md section 3): two requests are "the same" when
 * method, path and body are equal as JSON values, whatever the key order or whitespace the client
 * used. Canonical JSON here sorts object keys recursively (the ordering rule of RFC 8785, JCS);
 * numbers and strings are serialised by `JSON.stringify`, which is what Express parsed them from.
 */
import { createHash } from 'node:crypto';

/**
 * Serialises a JSON value with object keys sorted, so equal values give equal strings.
 * `undefined` (no body) serialises as `null`.
 */
function canonicalJson(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * SHA-256 (hex) of the canonical JSON of `{method, path, body}`.
 * @param path the request path with its query string, as the client sent it
 */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(canonicalJson({ method: method.toUpperCase(), path, body }))
    .digest('hex');
}
