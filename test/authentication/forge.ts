/**
 * Hand-made access tokens for the authentication tests: signed with the issuer's real key (loaded
 * from the database with the test SECRETS_KEY, to vary one claim at a time), with a stranger's key,
 * unsigned (`alg: none`), or HMAC-signed with the public key (the RS/HS confusion attack).
 */
import { createHmac, createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { loadSigningKeys } from '@dms/auth/domain';
import { SecretBox } from '@dms/secrets';
import { AUDIENCE, SERVICE_ENV, testDb, type TestTenant } from '../support/harness.js';

/** The issuer's current signing key: its kid, private key, and public key as PEM. */
export interface IssuerKey {
  kid: string;
  privateKey: KeyObject;
  publicPem: string;
}

/** Loads the issuer's active signing key from the test database. */
export async function issuerKey(): Promise<IssuerKey> {
  const keys = await loadSigningKeys(testDb(), new SecretBox(SERVICE_ENV.SECRETS_KEY!), 3600);
  const jwk = keys.keys.find((k) => k.kid === keys.activeKid)!;
  const privateKey = createPrivateKey({ key: jwk, format: 'jwk' });
  return { kid: jwk.kid, privateKey, publicPem: createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString() };
}

/** Claims the issuer would put in a token for `t`, valid for an hour from now. */
export function claimsFor(t: TestTenant): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: SERVICE_ENV.AUTH_ISSUER,
    sub: t.clientId,
    aud: AUDIENCE,
    iat: now,
    exp: now + 3600,
    jti: randomUUID(),
    scope: t.scope,
    client_id: t.clientId,
    tenant_id: t.tenantId,
  };
}

/** RS256-signs `claims` with `key` (kid and typ in the header as the issuer sets them). */
export function signRs256(claims: Record<string, unknown>, key: KeyObject, kid: string, typ = 'at+jwt'): string {
  return jwt.sign(claims, key, { algorithm: 'RS256', header: { alg: 'RS256', kid, typ } });
}

/** A fresh RSA key nobody published. */
export function strangerKey(): KeyObject {
  return generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
}

const b64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An unsecured JWT (RFC 7519 section 6): `alg: none`, empty signature. */
export function unsignedToken(claims: Record<string, unknown>, kid: string): string {
  return `${b64url({ alg: 'none', typ: 'at+jwt', kid })}.${b64url(claims)}.`;
}

/** HS256 with the issuer's public key PEM as the HMAC secret (algorithm confusion attack). */
export function hs256WithPublicKey(claims: Record<string, unknown>, kid: string, publicPem: string): string {
  const signingInput = `${b64url({ alg: 'HS256', typ: 'at+jwt', kid })}.${b64url(claims)}`;
  return `${signingInput}.${createHmac('sha256', publicPem).update(signingInput).digest('base64url')}`;
}
