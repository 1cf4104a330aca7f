/**
 * Vonage request signatures (Vonage API documentation, "Signing Messages") as @dms/channels
 * computes and verifies them: the signed string, the algorithms, constant-time verification,
 * timestamp tolerance, account check and replay guard.
 */
import { describe, expect, test } from '@jest/globals';
import { createHash, createHmac } from 'node:crypto';
import { SIGNATURE_METHODS, SignatureError, memoryReplayGuard, signParams, verifySignedParams, vonageSignature } from '@dms/channels';

const params = { b: 'x&y=z', a: '1', sig: 'ignored', timestamp: '1700000000' };
// What the documentation describes, written out by hand: sorted, `&` and `=` in values replaced by `_`, no `sig`.
const signed = '&a=1&b=x_y_z&timestamp=1700000000';

describe('vonageSignature', () => {
  test('md5hash: lowercase MD5 of the signed string followed by the secret', () => {
    expect(vonageSignature(params, 's3cret', 'md5hash')).toBe(createHash('md5').update(`${signed}s3cret`).digest('hex'));
  });

  test.each(['md5', 'sha1', 'sha256', 'sha512'] as const)('%s: uppercase HMAC of the signed string keyed by the secret', (method) => {
    expect(vonageSignature(params, 's3cret', method)).toBe(createHmac(method, 's3cret').update(signed).digest('hex').toUpperCase());
  });

  test('the order of parameters does not matter; a changed value does', () => {
    expect(vonageSignature({ timestamp: '1700000000', a: '1', b: 'x&y=z' }, 'k', 'sha256')).toBe(vonageSignature(params, 'k', 'sha256'));
    expect(vonageSignature({ ...params, a: '2' }, 'k', 'sha256')).not.toBe(vonageSignature(params, 'k', 'sha256'));
  });
});

describe('verifySignedParams', () => {
  const now = 1_700_000_000_000;
  const options = { secret: 'k', method: 'sha256' as const, apiKey: 'abcd1234', now: () => now };
  const sign = (p: Record<string, string>, at = now) => signParams({ 'api-key': 'abcd1234', nonce: 'n-1', ...p }, 'k', 'sha256', at);

  const failure = async (p: Record<string, string>, o: Parameters<typeof verifySignedParams>[1] = options) => {
    try {
      await verifySignedParams(p, o);
      return 'verified';
    } catch (err) {
      expect(err).toBeInstanceOf(SignatureError);
      return (err as SignatureError).code;
    }
  };

  test.each(SIGNATURE_METHODS)('a request signed with %s verifies, whatever the case of its hex', async (method) => {
    const p = signParams({ 'api-key': 'abcd1234', messageId: 'X' }, 'k', method, now);
    expect(await failure(p, { ...options, method })).toBe('verified');
    expect(await failure({ ...p, sig: p.sig!.toLowerCase() }, { ...options, method })).toBe('verified');
  });

  test('a missing, wrong or tampered signature is refused', async () => {
    const p = sign({ messageId: 'X', status: 'delivered' });
    expect(await failure({ ...p, sig: '' })).toBe('missing_signature');
    expect(await failure({ ...p, status: 'failed' })).toBe('bad_signature');
    expect(await failure(p, { ...options, secret: 'other' })).toBe('bad_signature');
    expect(await failure({ ...p, sig: p.sig!.slice(1) })).toBe('bad_signature');
  });

  test('a timestamp outside the tolerance is refused, either way', async () => {
    expect(await failure(sign({ messageId: 'X' }, now - 301_000))).toBe('stale_timestamp');
    expect(await failure(sign({ messageId: 'X' }, now + 301_000))).toBe('stale_timestamp');
    expect(await failure(sign({ messageId: 'X' }, now - 299_000))).toBe('verified');
    expect(await failure(sign({ messageId: 'X' }, now - 60_000), { ...options, toleranceSeconds: 30 })).toBe('stale_timestamp');
  });

  test('another account is refused', async () => {
    expect(await failure(signParams({ 'api-key': 'zzzz9999' }, 'k', 'sha256', now))).toBe('wrong_account');
  });

  test('with a replay guard, the same nonce is accepted once; a forged request does not use it up', async () => {
    const guarded = { ...options, replayGuard: memoryReplayGuard() };
    const p = sign({ messageId: 'X' });
    expect(await failure({ ...p, messageId: 'Y' }, guarded)).toBe('bad_signature');
    expect(await failure(p, guarded)).toBe('verified');
    expect(await failure(p, guarded)).toBe('replayed');
    expect(await failure(sign({ messageId: 'X', nonce: 'n-2' }), guarded)).toBe('verified');
  });
});
