/**
 * Vonage delivery receipts and inbound SMS as @dms/channels parses them (Vonage API reference,
 * "SMS API" callbacks; docs/api.md section 13): verified first, then mapped to
 * delivered | failed | bounced | pending with the reason.
 */
import { describe, expect, test } from '@jest/globals';
import { SignatureError, parseVonageInbound, parseVonageReceipt, receiptStatus, signParams } from '@dms/channels';

const verify = { secret: 'k', method: 'md5hash' as const, apiKey: 'abcd1234' };
const signed = (p: Record<string, string>) => signParams({ 'api-key': 'abcd1234', nonce: 'n', ...p }, 'k', 'md5hash');

describe('receiptStatus', () => {
  test.each([
    ['delivered', '0', 'delivered'],
    ['expired', '0', 'failed'],
    ['failed', '2', 'failed'],
    ['rejected', '6', 'failed'],
    ['failed', '3', 'bounced'],
    ['rejected', '4', 'bounced'],
    ['failed', '9', 'bounced'],
    ['accepted', '0', 'pending'],
    ['buffered', '0', 'pending'],
    ['unknown', '1', 'pending'],
  ])('%s with err-code %s is %s', (status, code, ours) => {
    expect(receiptStatus(status, code)).toBe(ours);
  });
});

describe('parseVonageReceipt', () => {
  test('a signed receipt parses into reference, communication, status, reason and time', async () => {
    const p = signed({
      messageId: '0A00000012345678',
      status: 'failed',
      'err-code': '3',
      'client-ref': 'com_1',
      'message-timestamp': '2025-03-01 12:00:05',
      msisdn: '447700900123',
    });
    expect(await parseVonageReceipt(p, verify)).toEqual({
      providerReference: '0A00000012345678',
      communicationId: 'com_1',
      status: 'bounced',
      reason: 'vonage failed, err-code 3',
      occurredAt: new Date('2025-03-01T12:00:05Z'),
    });
  });

  test('an unsigned receipt never reaches the parser; a signed one without messageId is a RangeError', async () => {
    await expect(parseVonageReceipt({ messageId: 'X', status: 'delivered' }, verify)).rejects.toBeInstanceOf(SignatureError);
    await expect(parseVonageReceipt(signed({ status: 'delivered' }), verify)).rejects.toThrow('missing messageId');
  });
});

describe('parseVonageInbound', () => {
  test('a signed inbound message gives sender in E.164, text and parts of a long message', async () => {
    const p = signed({
      messageId: 'M1',
      msisdn: '447700900123',
      to: '447700900000',
      text: 'I can pay £10',
      type: 'unicode',
      concat: 'true',
      'concat-ref': '7',
      'concat-part': '2',
      'concat-total': '3',
    });
    expect(await parseVonageInbound(p, verify)).toEqual({
      providerReference: 'M1',
      from: '+447700900123',
      to: '447700900000',
      text: 'I can pay £10',
      receivedAt: null,
      concat: { ref: '7', part: 2, total: 3 },
    });
  });
});
