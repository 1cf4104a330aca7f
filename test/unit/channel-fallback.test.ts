/**
 * Fall-back to the next usable channel (docs/api.md section 12, "Details"), pure: the order a step
 * tries channels in (`channelOrder`), the channel and detail it goes by (`stepChannel`), and its
 * message adapted to that channel (`adaptRendered` of @dms/templates).
 */
import { describe, expect, test } from '@jest/globals';
import { channelOrder, stepChannel } from '@dms/domain/communications';
import { adaptRendered } from '@dms/templates';

const detail = (id: string, type: string) => ({ id, type, status: 'verified' }) as unknown as Parameters<typeof stepChannel>[0][number];

describe('channelOrder and stepChannel', () => {
  test("the step's own channel first, then the strategy's others in order of first use, never another", () => {
    expect(channelOrder('letter', ['email', 'sms', 'email', 'letter'])).toEqual(['letter', 'email', 'sms']);
    expect(channelOrder('sms', ['email'])).toEqual(['sms', 'email']);
  });

  test('goes by its own channel when it reaches the customer, else by the next that does, else nowhere', () => {
    const details = [detail('cd_mobile', 'mobile_number'), detail('cd_address', 'address')];
    expect(stepChannel(details, 'sms', ['email', 'sms'])).toMatchObject({ method: 'sms', detail: { id: 'cd_mobile' } });
    expect(stepChannel(details, 'email', ['email', 'letter', 'sms'])).toMatchObject({ method: 'letter', detail: { id: 'cd_address' } });
    expect(stepChannel(details, 'email', ['email'])).toBeUndefined();
    expect(stepChannel([], 'email', ['email', 'sms', 'letter'])).toBeUndefined();
  });
});

describe('adaptRendered', () => {
  const email = {
    subject: 'Your account',
    body: '<p>Dear Ann &amp; Bo,</p><p>£10.00 is due. Pay at <a href="https://pay.example/l/x">https://pay.example/l/x</a> or <a href="https://help.example">ask us</a>.</p>',
    format: 'html' as const,
  };

  test('an email as an SMS: plain text, paragraphs kept, links as URLs, no subject', () => {
    expect(adaptRendered(email, 'sms', 'Acme')).toEqual({
      subject: null,
      body: 'Dear Ann & Bo,\n\n£10.00 is due. Pay at https://pay.example/l/x or ask us [https://help.example].',
      format: 'text',
    });
  });

  test('an email as a letter keeps its subject', () => {
    expect(adaptRendered(email, 'letter', 'Acme')).toMatchObject({ subject: 'Your account', format: 'text' });
  });

  test('a text message as an email: escaped HTML paragraphs, the fallback subject when it has none', () => {
    expect(adaptRendered({ subject: null, body: 'Acme: <b>£5</b> & more\n\nline one\nline two', format: 'text' }, 'email', 'Acme')).toEqual({
      subject: 'Acme',
      body: '<p>Acme: &lt;b&gt;£5&lt;/b&gt; &amp; more</p><p>line one<br>line two</p>',
      format: 'html',
    });
  });

  test('a letter as an SMS drops its subject and keeps its text', () => {
    expect(adaptRendered({ subject: 'Notice', body: 'Dear Ann,\n\nPlease pay.', format: 'text' }, 'sms', 'Acme')).toEqual({
      subject: null,
      body: 'Dear Ann,\n\nPlease pay.',
      format: 'text',
    });
  });
});
