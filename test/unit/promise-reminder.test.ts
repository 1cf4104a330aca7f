/**
 * The pure rules of a pay-later promise's reminder (docs/api.md section 18 "Pay later"): it is
 * due on the calendar day before the promise's date only (across month and year ends, a leap
 * day), and its built-in template follows the customer's locale; both templates are valid emails
 * that carry the message's portal link.
 */
import { describe, expect, test } from '@jest/globals';
import { validateTemplate } from '@dms/templates';
import { BUILT_IN_TEMPLATES } from '@dms/domain/communication-templates';
import { contactPaused } from '@dms/domain/communications';
import { PROMISE_REMINDER_TEMPLATES, isDayBefore, promiseReminderTemplate } from '@dms/domain/portal';

describe('isDayBefore', () => {
  test.each([
    ['2026-12-04', '2026-12-03', true],
    ['2026-12-04', '2026-12-02', false],
    ['2026-12-04', '2026-12-04', false],
    ['2026-12-04', '2026-12-05', false],
    ['2027-01-01', '2026-12-31', true],
    ['2026-03-01', '2026-02-28', true],
    ['2028-03-01', '2028-02-29', true],
    ['2028-03-01', '2028-02-28', false],
  ])('a promise on %s, today %s: %s', (payOn, today, expected) => {
    expect(isDayBefore(payOn, today)).toBe(expected);
  });
});

test('the template follows the locale; both are valid emails with the payment link', () => {
  expect(promiseReminderTemplate('fr-FR')).toBe('default-email-promise-reminder-fr');
  expect(promiseReminderTemplate('en-GB')).toBe('default-email-promise-reminder');
  expect(promiseReminderTemplate(null)).toBe('default-email-promise-reminder');
  for (const name of Object.values(PROMISE_REMINDER_TEMPLATES)) {
    const t = BUILT_IN_TEMPLATES[name]!;
    expect(t.delivery_method).toBe('email');
    expect(validateTemplate(t, 'email')).toEqual([]);
    expect(t.body).toContain('{{ payment_link }}');
  }
});

test('contact is paused by a status that forbids it or a running timed pause, not by a pause that ended', () => {
  const now = new Date('2026-12-03T12:00:00Z');
  expect(contactPaused({ status: 'disputed', pause_end_at: null }, now)).toBe(true);
  expect(contactPaused({ status: 'legal_protection', pause_end_at: new Date('2027-01-01T00:00:00Z') }, now)).toBe(true);
  expect(contactPaused({ status: 'follow_up_required', pause_end_at: new Date('2026-12-04T00:00:00Z') }, now)).toBe(true);
  expect(contactPaused({ status: 'follow_up_required', pause_end_at: new Date('2026-12-02T00:00:00Z') }, now)).toBe(false);
  expect(contactPaused({ status: 'contacted', pause_end_at: null }, now)).toBe(false);
});
