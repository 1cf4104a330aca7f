/**
 * The addresses and identities emails carry (docs/api.md section 13):
 *
 * - **Reply address** per debt, `reply+<debt>-<tag>@<REPLY_DOMAIN>`: replies to it become the
 *   debt's inbound communications. **Bounce address** per communication (the envelope sender,
 *   RFC 5321 section 4.1.1.2, where delivery status notifications go), `bounce+<com>-<tag>@<REPLY_DOMAIN>`
 *   (variable envelope return path), so a bounce names its communication even when it quotes nothing.
 * - The id is written in lowercase base32 (RFC 4648 alphabet) of its base62 part, because mail
 *   systems may change the case of a local part (RFC 5321 section 2.4 leaves it to the receiving
 *   host); `<tag>` is an HMAC-SHA256 of the purpose and id under the reply-address key, so nobody
 *   can forge a reply or a bounce for a debt or communication whose id they know.
 *   `reply+deb-<29 chars>-<16 chars>@...` has a 56-character local part (limit 64, RFC 5321 section 4.5.3.1.1).
 * - **Message-ID** `<com_...@<domain>>` (RFC 5322 section 3.6.4): the communication's own id, so
 *   a retry after a crash sends the same identity and replies (`In-Reply-To`) and bounces name it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** What a tagged address stands for: a reply to a debt, or a bounce of a communication. */
export type AddressPurpose = 'reply' | 'bounce';

/**
 * The domain and keys of reply and bounce addresses (settings `REPLY_DOMAIN`, `REPLY_ADDRESS_SECRET`):
 * `key` tags new addresses; `previous` keys (a rotation's older ones) are still accepted when an
 * address is read back, so replies to e-mails sent before the rotation keep reaching their debt.
 */
export interface AddressKey {
  domain: string;
  key: string;
  previous?: string[];
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
const ID = /^([a-z]{2,5})_([0-9A-Za-z]{24})$/;
// 62^24 < 2^143, so 29 base32 characters (145 bits) hold any id.
const ENCODED_LENGTH = 29;
const TAG_BYTES = 10;

function convert(digits: string, from: string, to: string, width: number): string {
  let n = 0n;
  for (const c of digits) n = n * BigInt(from.length) + BigInt(from.indexOf(c));
  let out = '';
  while (n > 0n) {
    out = to[Number(n % BigInt(to.length))] + out;
    n /= BigInt(to.length);
  }
  return out.padStart(width, to[0]);
}

function base32(bytes: Buffer): string {
  let bits = '';
  for (const b of bytes) bits += b.toString(2).padStart(8, '0');
  let out = '';
  for (let i = 0; i < bits.length; i += 5) out += BASE32[parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
  return out;
}

function tag(purpose: AddressPurpose, id: string, key: string): string {
  return base32(createHmac('sha256', key).update(`${purpose}:${id}`).digest().subarray(0, TAG_BYTES));
}

/**
 * The tagged address of `id` for `purpose`, e.g. `reply+deb-<29>-<16>@reply.example.com`.
 * @param id an object id (`<prefix>_<24 base62>`, docs/api.md section 3)
 * @throws RangeError when `id` is not an object id
 */
export function taggedAddress(purpose: AddressPurpose, id: string, { domain, key }: AddressKey): string {
  const m = ID.exec(id);
  if (!m) throw new RangeError(`not an object id: ${JSON.stringify(id)}`);
  return `${purpose}+${m[1]}-${convert(m[2]!, BASE62, BASE32, ENCODED_LENGTH)}-${tag(purpose, id, key)}@${domain.toLowerCase()}`;
}

/** The per-debt reply address (the `Reply-To` of every email about the debt). */
export function replyAddress(debtId: string, key: AddressKey): string {
  return taggedAddress('reply', debtId, key);
}

/** The per-communication bounce address (the envelope sender, where bounces go). */
export function bounceAddress(communicationId: string, key: AddressKey): string {
  return taggedAddress('bounce', communicationId, key);
}

const TAGGED = /^(reply|bounce)\+([a-z]{2,5})-([a-z2-7]{29})-([a-z2-7]{16})@(.+)$/;

/**
 * Reads a tagged address back (any case, as mail systems may change it): its purpose and id, or
 * null when it is not one of ours (another domain, not tagged, or a tag that verifies under neither
 * `key` nor a `previous` key, each compared in constant time).
 */
export function parseTaggedAddress(address: string, { domain, key, previous = [] }: AddressKey): { purpose: AddressPurpose; id: string } | null {
  const m = TAGGED.exec(address.trim().toLowerCase());
  if (!m || m[5] !== domain.toLowerCase()) return null;
  const [, purpose, prefix, encoded, given] = m as unknown as [string, AddressPurpose, string, string, string];
  const digits = convert(encoded, BASE32, BASE62, 24);
  if (digits.length !== 24) return null;
  const id = `${prefix}_${digits}`;
  const actual = Buffer.from(given);
  const verifies = (k: string) => {
    const expected = Buffer.from(tag(purpose, id, k));
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  };
  return [key, ...previous].some(verifies) ? { purpose, id } : null;
}

/** The Message-ID of a communication's email, `<com_...@domain>` (RFC 5322 section 3.6.4). */
export function messageIdFor(communicationId: string, domain: string): string {
  if (!ID.test(communicationId)) throw new RangeError(`not an object id: ${JSON.stringify(communicationId)}`);
  return `<${communicationId}@${domain.toLowerCase()}>`;
}

/** The communication id inside a Message-ID made by `messageIdFor` for `domain`, or null for any other Message-ID. */
export function communicationIdFromMessageId(messageId: string, domain: string): string | null {
  const m = /^<?([a-z]{2,5}_[0-9A-Za-z]{24})@([^>\s]+)>?$/.exec(messageId.trim());
  return m && m[2]!.toLowerCase() === domain.toLowerCase() ? m[1]! : null;
}
