/**
 * Signature schemes of deliveries (docs/api.md sections 7, 11 and 15), chosen per endpoint:
 * - `standard`: Standard Webhooks (`webhook-id`, `webhook-timestamp`,
 *   `webhook-signature: v1,<base64 HMAC-SHA256 over "<id>.<t>.<body>">`, the secret's base64 part
 *   decoded as the key), the default;
 * - `hmac_sha256_hex`: the public API's own, one header
 *   `Ophelos-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 over "<t>.<raw body>">`, keyed by the
 *   whole signing secret as UTF-8 text.
 * During a secret rotation both schemes carry one signature per secret: Standard Webhooks space
 * separated, the hex header one `v1=` per secret with the newest last.
 */
import { createHmac } from 'node:crypto';

/** Every signature scheme, the default first. */
export const SIGNATURE_SCHEMES = ['standard', 'hmac_sha256_hex'] as const;
export type SignatureScheme = (typeof SIGNATURE_SCHEMES)[number];
/** The scheme of an endpoint created without one. */
export const DEFAULT_SIGNATURE_SCHEME: SignatureScheme = 'standard';
/** The header of the `hmac_sha256_hex` scheme. */
export const HEX_SIGNATURE_HEADER = 'ophelos-signature';

/**
 * The `Ophelos-Signature` value of `body` sent at `unixSeconds`.
 * @param secrets signing secrets, current first (as endpoints hold them); the header lists them
 *   oldest first, so the newest `v1=` is last
 */
export function hexSignatureHeader(secrets: readonly string[], unixSeconds: number, body: string): string {
  const signed = `${unixSeconds}.${body}`;
  const v1 = [...secrets].reverse().map((secret) => `v1=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(signed, 'utf8').digest('hex')}`);
  return [`t=${unixSeconds}`, ...v1].join(',');
}
