/**
 * Signing-key rotation without downtime (docs/api.md section 2): after `admin keys rotate` the issuer
 * signs with the new key (it learns of it through LISTEN/NOTIFY), both keys are published, and a
 * token signed before the rotation keeps working on the API until it expires.
 */
import { afterAll, expect, test } from '@jest/globals';
import request from 'supertest';
import jwt from 'jsonwebtoken';
import { AUTH_URL, apiAs, closeHarness, newTenant, tokenFor } from '../support/harness.js';
import { adminJson } from '../support/admin-cli.js';
import { eventually } from '../support/eventually.js';

afterAll(closeHarness);

const kidOf = (token: string) => jwt.decode(token, { complete: true })!.header.kid!;

/** Requests tokens until one is signed with `kid` (the issuer reloads keys asynchronously). */
async function tokenSignedWith(kid: string, get: () => Promise<string>): Promise<string> {
  return eventually(
    async () => {
      const token = await get();
      if (kidOf(token) !== kid) throw new Error(`issuer still signs with ${kidOf(token)}`);
      return token;
    },
    `a token signed with ${kid}`,
    { intervalMs: 100 },
  );
}

test('a token signed before `keys rotate` still works; new tokens use the new kid', async () => {
  const tenant = await newTenant();
  const before = await tokenFor(tenant);
  const oldKid = kidOf(before);
  await apiAs(before).get('/debts').expect(200);

  const rotated = await adminJson<{ kid: string; alg: string; rotated: string[] }>(['keys', 'rotate']);
  expect(rotated.kid).not.toBe(oldKid);
  expect(rotated.alg).toBe('RS256');
  // Other test files may have rotated too; the key this token was signed with is among the retired ones
  // unless it was retired earlier still.
  expect(rotated.rotated.length).toBeGreaterThanOrEqual(1);

  const after = await tokenSignedWith(rotated.kid, () => tokenFor(tenant));
  const jwks = await request(AUTH_URL).get('/.well-known/jwks.json').expect(200);
  const published = jwks.body.keys.map((k: { kid: string }) => k.kid);
  expect(published).toEqual(expect.arrayContaining([oldKid, rotated.kid]));

  // The API has the old key cached and fetches the new one on its first unknown kid.
  await apiAs(before).get('/debts').expect(200);
  await apiAs(after).get('/debts').expect(200);
  await apiAs(before).get('/customers').expect(200);
});
