/**
 * Pure rules of communications (docs/api.md sections 12 and 13): the customer's time zone from
 * `preferred_locale`, the 08:00-21:00 window, the 7-day limit, the communication machine, the
 * built-in templates of the default strategy (each valid for its channel), and the days of steps.
 */
import { describe, expect, test } from '@jest/globals';
import { validateTemplate } from '@dms/templates';
import { BUILT_IN_TEMPLATES } from '@dms/domain/communication-templates';
import { COMMUNICATION_MACHINE, nextAllowedByLimit, nextContactTime, stepDueAt, timeZoneOf } from '@dms/domain/communications';
import { customerTimeZone } from '@dms/domain/customers';
import { DEFAULT_STRATEGY } from '@dms/domain/organisations';

describe('contact window', () => {
  test('the zone comes from the locale region, Europe/London by default', () => {
    expect(timeZoneOf('en-US')).toBe('America/New_York');
    expect(timeZoneOf('fr-FR')).toBe('Europe/Paris');
    expect(timeZoneOf('en')).toBe('Europe/London');
    expect(timeZoneOf(null)).toBe('Europe/London');
    // One rule for the contact window and for the dates a client sends (a pause's end day).
    for (const locale of ['sv-SE', 'en-CA', 'en-AU', 'de-DE', null]) expect(timeZoneOf(locale)).toBe(customerTimeZone(locale));
    expect(timeZoneOf('sv-SE')).toBe('Europe/Stockholm');
  });

  test('inside 08:00-21:00 a communication goes now; outside, at the next 08:00 local', () => {
    const noon = new Date('2025-01-15T12:00:00Z');
    expect(nextContactTime(noon, 'Europe/London')).toEqual(noon);
    expect(nextContactTime(new Date('2025-01-15T20:59:00Z'), 'Europe/London')).toEqual(new Date('2025-01-15T20:59:00Z'));
    expect(nextContactTime(new Date('2025-01-15T21:00:00Z'), 'Europe/London')).toEqual(new Date('2025-01-16T08:00:00Z'));
    expect(nextContactTime(new Date('2025-01-15T07:59:30Z'), 'Europe/London')).toEqual(new Date('2025-01-15T08:00:00Z'));
    // Summer time: 08:00 in London is 07:00 UTC.
    expect(nextContactTime(new Date('2025-07-15T02:00:00Z'), 'Europe/London')).toEqual(new Date('2025-07-15T07:00:00Z'));
    // Noon in London is 07:00 in New York: wait an hour.
    expect(nextContactTime(noon, 'America/New_York')).toEqual(new Date('2025-01-15T13:00:00Z'));
  });

  test('the 7-day limit: under it now; at it, a week after the oldest contact', () => {
    const now = new Date('2025-01-15T12:00:00Z');
    const oldest = new Date('2025-01-10T12:00:00Z');
    expect(nextAllowedByLimit(now, 2, oldest, 3)).toEqual(now);
    expect(nextAllowedByLimit(now, 3, oldest, 3).getTime()).toBeGreaterThan(new Date('2025-01-17T12:00:00Z').getTime());
  });
});

describe('communication machine', () => {
  test('queued → sent → delivered | failed | bounced; nothing leaves delivered but a bounce; received is final', () => {
    expect(COMMUNICATION_MACHINE.transition('queued', 'send')).toEqual({ ok: true, to: 'sent' });
    expect(COMMUNICATION_MACHINE.transition('sent', 'deliver')).toEqual({ ok: true, to: 'delivered' });
    expect(COMMUNICATION_MACHINE.transition('delivered', 'deliver').ok).toBe(false);
    expect(COMMUNICATION_MACHINE.transition('delivered', 'bounce')).toEqual({ ok: true, to: 'bounced' });
    expect(COMMUNICATION_MACHINE.transition('failed', 'send').ok).toBe(false);
    for (const move of COMMUNICATION_MACHINE.moves) expect(COMMUNICATION_MACHINE.transition('received', move).ok).toBe(false);
  });
});

describe('strategies', () => {
  test('every built-in template is valid for its channel, and the default strategy names only them', () => {
    for (const t of Object.values(BUILT_IN_TEMPLATES)) expect(validateTemplate(t, t.delivery_method)).toEqual([]);
    for (const step of DEFAULT_STRATEGY.steps) expect(BUILT_IN_TEMPLATES[step.template]?.delivery_method).toBe(step.delivery_method);
  });

  test('steps are due at once before contact, then on their day after it; after the last, a week later', () => {
    const now = new Date('2025-01-15T12:00:00Z');
    const contacted = new Date('2025-01-01T10:00:00Z');
    expect(stepDueAt(DEFAULT_STRATEGY, 1, null, now)).toEqual(now);
    expect(stepDueAt(DEFAULT_STRATEGY, 1, contacted, now)).toEqual(new Date('2025-01-04T10:00:00Z'));
    expect(stepDueAt(DEFAULT_STRATEGY, 4, contacted, now)).toEqual(new Date('2025-02-07T10:00:00Z'));
  });
});
