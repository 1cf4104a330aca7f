/**
 * Portal link tokens across a `SECRETS_KEY` rotation (docs/api.md section 18, deploy/README.md
 * "Rotating keys"): a message's link token is derived from its link id with a key made from the
 * current secrets key; a re-send derives it again with whichever configured key the stored hash was
 * made with, so a message queued before the rotation still carries its own working link. A key no
 * longer configured gives no usable link, never another one.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createPortalLink, hashToken, linkToken, linkTokenKeys, TOKEN_MARKER } from '@dms/domain/portal';
import { restoreLinkToken } from '@dms/domain/communications';
import { closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';

const [A, B] = [randomBytes(32).toString('base64'), randomBytes(32).toString('base64')];
let tenantId: string;
let customerId: string;

beforeAll(async () => {
  const me = await signedInTenant();
  tenantId = me.tenant.tenantId;
  ({ customerId } = await seedParties(me.api));
});

afterAll(closeHarness);

test('one key per configured secrets key, current first; a single key derives as it always did', () => {
  const [kB, kA] = linkTokenKeys(`${B}, ${A}`);
  expect(linkTokenKeys(A)).toEqual([kA]);
  expect(kA).toEqual(createHmac('sha256', A).update('dms portal link token v1').digest());
  expect(kB).not.toEqual(kA);
});

test('a message queued under key A gets its own token back after the rotation to "B,A"; with B alone, none', async () => {
  const [kA] = linkTokenKeys(A);
  const communicationId = `com_${randomBytes(8).toString('hex')}`;
  const id = `pln_${randomBytes(8).toString('hex')}`;
  const { row } = await createPortalLink(testDb(), { tenantId, customerId, communicationId, ttlDays: 30, derive: { id, key: kA! } });
  const { token_hash: stored } = await testDb()('portal_links').where({ id: row.id }).first<{ token_hash: Buffer }>('token_hash');
  const body = `Pay at https://portal.example/l/${TOKEN_MARKER}`;

  const rotated = await restoreLinkToken(testDb(), linkTokenKeys(`${B},${A}`), tenantId, communicationId, body);
  const token = rotated.split('/l/')[1]!;
  expect(token).toBe(linkToken(kA!, row.id));
  expect(hashToken(token).equals(stored)).toBe(true);

  // Once A is removed, the stored hash matches no key: the marker stays rather than a link that opens nothing.
  expect(await restoreLinkToken(testDb(), linkTokenKeys(B), tenantId, communicationId, body)).toBe(body);
});
