/**
 * A step's fall-back to the customer's next usable channel (docs/api.md section 13, "Channel
 * fall-back"), pure: the order of the channels a step may use (`usableChannels`) and the same
 * template's text carried to the channel it falls back to (`adaptRendered`).
 */
import { describe, expect, test } from '@jest/globals';
import { adaptRendered, usableChannels } from '@dms/domain/communications';
import type { ContactDetailRow } from '@dms/domain/contact-details';

const detail = (type: ContactDetailRow['type']) => ({ id: `ccd_${type}`, type, value: 'x', address: null }) as unknown as ContactDetailRow;
const email = detail('email');
const mobile = detail('mobile_number');
const address = detail('address');

describe('usableChannels', () => {
  test("the step's own channel first when the customer has a usable detail for it", () => {
    expect(usableChannels('sms', [email, mobile, address])).toEqual(['sms', 'email', 'letter']);
    expect(usableChannels('letter', [email, mobile, address])).toEqual(['letter', 'email', 'sms']);
  });
  test('without a usable detail of its channel (none, or marked undeliverable: not among the usable ones), the next usable channel', () => {
    expect(usableChannels('email', [mobile, address])[0]).toBe('sms');
    expect(usableChannels('email', [address])).toEqual(['letter']);
    expect(usableChannels('sms', [address, email])).toEqual(['email', 'letter']);
  });
  test("a channel the customer does not accept is never in the list, even as the step's own", () => {
    expect(usableChannels('sms', [email, mobile, address], ['email', 'letter'])).toEqual(['email', 'letter']);
    expect(usableChannels('email', [email, mobile], ['letter'])).toEqual([]);
  });
  test('no usable detail at all: no channel', () => {
    expect(usableChannels('email', [])).toEqual([]);
  });
});

describe('adaptRendered', () => {
  const mail = { subject: 'Your account', body: '<p>Dear Ann,</p><p>£10.00 is outstanding &amp; due.</p>', format: 'html' as const };
  test('unchanged on its own channel', () => {
    expect(adaptRendered(mail, 'email', 'email', 'x')).toBe(mail);
  });
  test('an email to an SMS: plain text, the subject opening it, no subject, no tags', () => {
    const sms = adaptRendered(mail, 'email', 'sms', 'x');
    expect(sms.subject).toBeNull();
    expect(sms.format).toBe('text');
    expect(sms.body).toMatch(/^Your account: Dear Ann,\s+£10\.00 is outstanding & due\.$/);
    expect(sms.body).not.toMatch(/<|&amp;/);
  });
  test('an email to a letter keeps its subject, body as plain text', () => {
    expect(adaptRendered(mail, 'email', 'letter', 'x')).toMatchObject({
      subject: 'Your account',
      format: 'text',
      body: expect.stringMatching(/^Dear Ann,\s+£10/),
    });
  });
  test('an SMS to an email: escaped HTML paragraphs and the fall-back subject', () => {
    const out = adaptRendered({ subject: null, body: 'Pay <now> & save\n\nThanks', format: 'text' }, 'sms', 'email', 'Your Example account');
    expect(out).toEqual({ subject: 'Your Example account', body: '<p>Pay &#60;now&#62; &#38; save</p><p>Thanks</p>', format: 'html' });
  });
  test('a letter to an SMS: subject opens the text', () => {
    expect(adaptRendered({ subject: 'Notice', body: 'Dear Ann,\n\nPay.', format: 'text' }, 'letter', 'sms', 'x')).toEqual({
      subject: null,
      body: 'Notice: Dear Ann,\n\nPay.',
      format: 'text',
    });
  });
});
