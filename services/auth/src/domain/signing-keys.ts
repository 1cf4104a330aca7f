/**
 * Access-token signing keys (RFC 7517 JWKs) kept in PostgreSQL, private parts encrypted.
 *
 * Rotation: `keys rotate` adds a key and marks the previous one rotated. The newest key signs; a
 * rotated key stays published in the JWKS for one token lifetime plus a margin, so tokens it signed
 * keep verifying until they expire. The issuer learns of a rotation through NOTIFY on
 * `SIGNING_KEYS_CHANNEL`.
 */
import { createHash, generateKeyPairSync, type JsonWebKey } from 'node:crypto';
import type { Knex } from '@dms/db';
import type { SecretBox } from '@dms/secrets';

/** LISTEN/NOTIFY channel announcing key changes. */
export const SIGNING_KEYS_CHANNEL = 'signing_keys_changed';

/** Extra seconds a rotated key stays published beyond the token lifetime (clock skew, caches). */
const PUBLISH_MARGIN_SECONDS = 300;

export type SigningAlg = 'RS256' | 'ES256';

/** A private JWK with the members oidc-provider's keystore expects. */
export type PrivateJwk = JsonWebKey & { kid: string; alg: SigningAlg; use: 'sig' };

/** The keys the issuer loads: all published private keys (newest first) and the signing one. */
export interface SigningKeySet {
  activeKid: string;
  keys: PrivateJwk[];
}

/** RFC 7638 JWK thumbprint (SHA-256, base64url) used as `kid`. */
function thumbprint(jwk: JsonWebKey): string {
  const members = jwk.kty === 'RSA' ? { e: jwk.e, kty: jwk.kty, n: jwk.n } : { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y };
  return createHash('sha256').update(JSON.stringify(members)).digest('base64url');
}

function generateJwk(alg: SigningAlg): PrivateJwk {
  const { privateKey } = alg === 'RS256' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = privateKey.export({ format: 'jwk' });
  return { ...jwk, kid: thumbprint(jwk), alg, use: 'sig' };
}

function publicPart(jwk: PrivateJwk): JsonWebKey {
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...pub } = jwk;
  return pub;
}

async function insertKey(db: Knex, box: SecretBox, alg: SigningAlg): Promise<string> {
  const jwk = generateJwk(alg);
  await db('signing_keys').insert({
    kid: jwk.kid,
    alg,
    public_jwk: JSON.stringify(publicPart(jwk)),
    private_jwk_ciphertext: box.seal(JSON.stringify(jwk)),
  });
  return jwk.kid;
}

/**
 * Creates the first signing key if there is none (first start of a new installation).
 * @returns the active kid
 */
export async function ensureSigningKey(db: Knex, box: SecretBox, alg: SigningAlg): Promise<string> {
  return db.transaction(async (trx) => {
    // Serialise concurrent first starts so exactly one key is created.
    await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', ['signing_keys']);
    const current = await trx('signing_keys').whereNull('rotated_at').orderBy('created_at', 'desc').first('kid');
    return current?.kid ?? insertKey(trx, box, alg);
  });
}

/**
 * Rotates: a new key takes over signing, the previous one stays published for verification.
 * @returns the new kid and the kids now only published for verification
 */
export async function rotateSigningKey(db: Knex, box: SecretBox, alg: SigningAlg): Promise<{ kid: string; alg: SigningAlg; rotated: string[] }> {
  return db.transaction(async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', ['signing_keys']);
    const rotated = await trx('signing_keys').whereNull('rotated_at').update({ rotated_at: trx.fn.now() }).returning('kid');
    const kid = await insertKey(trx, box, alg);
    await trx.raw('SELECT pg_notify(?, ?)', [SIGNING_KEYS_CHANNEL, kid]);
    return { kid, alg, rotated: rotated.map((r: { kid: string }) => r.kid) };
  });
}

/**
 * Loads the keys to publish: the active one and those rotated less than a token lifetime ago.
 * @param tokenTtlSeconds access-token lifetime, seconds
 * @throws Error when no active key exists (call `ensureSigningKey` first)
 */
export async function loadSigningKeys(db: Knex, box: SecretBox, tokenTtlSeconds: number): Promise<SigningKeySet> {
  const rows: Array<{ kid: string; private_jwk_ciphertext: string; rotated_at: Date | null }> = await db('signing_keys')
    .where((q) => void q.whereNull('rotated_at').orWhereRaw('rotated_at > now() - make_interval(secs => ?)', [tokenTtlSeconds + PUBLISH_MARGIN_SECONDS]))
    .orderBy('created_at', 'desc')
    .select('kid', 'private_jwk_ciphertext', 'rotated_at');
  const active = rows.find((r) => r.rotated_at === null);
  if (!active) throw new Error('no active signing key');
  return { activeKid: active.kid, keys: rows.map((r) => JSON.parse(box.open(r.private_jwk_ciphertext)) as PrivateJwk) };
}
