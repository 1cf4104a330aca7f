/**
 * The payment providers' pure parts (docs/api.md section 18 "Payments"): Stripe-style callback
 * signatures (tolerance, tampering), the test cards of the local provider, the amounts typed on
 * the pay page and their bounds.
 */
import { describe, expect, test } from '@jest/globals';
import { CallbackRejected, TOLERANCE_SECONDS, cardBehaviour, localProvider, signatureHeader, verifySignature } from '../../libs/payments/src/index.js';
import { amountProblem } from '../../libs/domain/src/portal/pay.js';
import { parseAmount } from '@dms/portal/pay';

describe('signatures', () => {
  const now = new Date('2026-11-28T12:00:00Z');
  const t = now.getTime() / 1000;
  test('a signature verifies within the tolerance only, for its body and secret only', () => {
    const header = signatureHeader('s', '{"a":1}', t);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(() => verifySignature('s', '{"a":1}', header, now)).not.toThrow();
    expect(() => verifySignature('s', '{"a":2}', header, now)).toThrow(CallbackRejected);
    expect(() => verifySignature('other', '{"a":1}', header, now)).toThrow(CallbackRejected);
    expect(() => verifySignature('s', '{"a":1}', header, new Date(now.getTime() + (TOLERANCE_SECONDS + 1) * 1000))).toThrow(/tolerance/);
    for (const bad of [undefined, '', 't=abc,v1=00', `t=${t}`, `t=${t},v1=zz`])
      expect(() => verifySignature('s', '{"a":1}', bad, now)).toThrow(CallbackRejected);
  });

  test("the local provider's signed outcome verifies back to the same outcome; a body without a known type is refused", async () => {
    const p = localProvider('secret');
    const signed = p.signedOutcome({ status: 'failed', tenantId: 'ten_1', debtId: 'deb_1', reference: 'lcs_1' });
    await expect(p.verifyCallback(signed.body, signed.signature)).resolves.toMatchObject({
      status: 'failed',
      tenantId: 'ten_1',
      debtId: 'deb_1',
      reference: 'lcs_1',
      eventId: expect.stringMatching(/^evt_local_/),
    });
    const body = JSON.stringify({ id: 'evt_x', type: 'payment.refunded', data: { tenant: 't', debt: 'd', reference: 'r' } });
    await expect(p.verifyCallback(body, signatureHeader('secret', body, Math.floor(Date.now() / 1000)))).rejects.toThrow(/malformed/);
  });
});

describe('cards and amounts', () => {
  test("Stripe's test cards; other numbers are declined; non-numbers refused", () => {
    expect(cardBehaviour('4242 4242 4242 4242')).toBe('succeeds');
    expect(cardBehaviour('4000-0000-0000-0002')).toBe('declined');
    expect(cardBehaviour('4000002500003155')).toBe('authenticate');
    expect(cardBehaviour('5555555555554444')).toBe('declined');
    expect(cardBehaviour('4242')).toBeUndefined();
    expect(cardBehaviour('abcd abcd abcd abcd')).toBeUndefined();
  });

  test('amounts in major units become minor units by the currency; bounds name the problem', () => {
    expect(parseAmount('£1,234.5', 'GBP')).toBe(123450);
    expect(parseAmount('10', 'GBP')).toBe(1000);
    expect(parseAmount('1.234', 'GBP')).toBeUndefined();
    expect(parseAmount('500', 'JPY')).toBe(500);
    expect(parseAmount('5.5', 'JPY')).toBeUndefined();
    // A decimal comma (the French pages' "25,00") is never read as thousands.
    expect(parseAmount('5,00', 'GBP')).toBe(500);
    expect(parseAmount('25,5', 'EUR')).toBe(2550);
    expect(parseAmount('1 234,50 €', 'EUR')).toBe(123450);
    expect(parseAmount('1\u202f234,50', 'EUR')).toBe(123450);
    expect(parseAmount('1.234,50', 'EUR')).toBe(123450);
    expect(parseAmount('1,234', 'GBP')).toBe(123400);
    expect(parseAmount('-3', 'GBP')).toBeUndefined();
    const bounds = { min: 500, max: 10000, currency: 'GBP' };
    expect(amountProblem(undefined, bounds)).toBe('missing');
    expect(amountProblem(0, bounds)).toBe('missing');
    expect(amountProblem(499, bounds)).toBe('below_minimum');
    expect(amountProblem(10001, bounds)).toBe('above_balance');
    expect(amountProblem(10000, bounds)).toBeUndefined();
  });
});
