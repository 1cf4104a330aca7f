/**
 * The collection engine's decisions about a send (docs/api.md section 13), pure: what reconciling
 * a lost send does for each answer of its provider (`reconcileDecision`), and when a message its
 * provider refused for now is tried again (`nextRetryAt`: backoff with jitter, inside the contact
 * hours, within the retry window).
 */
import { describe, expect, test } from '@jest/globals';
import { nextRetryAt, reconcileDecision } from '@dms/domain/communications';

const handedAt = new Date('2026-03-02T12:00:00Z');
const now = new Date('2026-03-02T12:10:00Z');
const row = { id: 'com_lost', handed_at: handedAt, sending_at: handedAt };

describe('reconcileDecision', () => {
  test('sent: recorded as accepted with the provider reference, at the hand-over', () => {
    const d = reconcileDecision(row, 'vonage', { outcome: 'sent', providerReference: 'msg-1', details: { status: 'delivered' } }, now);
    expect(d).toMatchObject({ kind: 'record', outcome: { kind: 'sent', handedAt, accepted: { provider: 'vonage', providerReference: 'msg-1' } } });
  });
  test('not_found: handed over again now (it never reached the provider)', () => {
    expect(reconcileDecision(row, 'vonage', { outcome: 'not_found' }, now)).toMatchObject({ kind: 'hand_over_again', at: now });
  });
  test('ask_later: asked again after the time the provider names, not failed', () => {
    const d = reconcileDecision(row, 'vonage', { outcome: 'ask_later', retryAfterSeconds: 90, reason: 'records lag' }, now);
    expect(d).toMatchObject({ kind: 'ask_later', at: new Date(now.getTime() + 90_000), reason: expect.stringMatching(/records lag; asked again later/) });
  });
  test('unknown: failed with the reason, counted from its hand-over, never sent again', () => {
    const d = reconcileDecision(row, 'smtp', { outcome: 'unknown', reason: 'smtp_cannot_be_asked' }, now);
    expect(d).toMatchObject({ kind: 'record', outcome: { kind: 'unknown', handedAt } });
    if (d.kind === 'record' && d.outcome.kind === 'unknown')
      expect(d.outcome.reason).toMatch(/^outcome unknown after the worker stopped: smtp_cannot_be_asked.*not sent again$/);
  });
  test('no provider for the channel: unknown', () => {
    expect(reconcileDecision(row, null, null, now)).toMatchObject({ kind: 'record', outcome: { kind: 'unknown' } });
  });
});

describe('nextRetryAt', () => {
  const settings = { baseSeconds: 60, maxSeconds: 3600, windowSeconds: 86_400 };
  const first = new Date('2026-03-02T12:00:00Z'); // 12:00 in London (GMT)
  test('doubles from attempt to attempt, scaled by the jitter, up to the ceiling', () => {
    expect(nextRetryAt(1, first, first, 'Europe/London', settings, 0.5)).toEqual(new Date(first.getTime() + 60_000));
    expect(nextRetryAt(3, first, first, 'Europe/London', settings, 0.5)).toEqual(new Date(first.getTime() + 240_000));
    expect(nextRetryAt(3, first, first, 'Europe/London', settings, 0)).toEqual(new Date(first.getTime() + 120_000));
    expect(nextRetryAt(20, first, first, 'Europe/London', settings, 0.5)).toEqual(new Date(first.getTime() + 3_600_000));
  });
  test('a retry that would fall outside 08:00-21:00 waits for the next 08:00', () => {
    const late = new Date('2026-03-02T20:50:00Z');
    expect(nextRetryAt(5, late, late, 'Europe/London', settings, 0.5)).toEqual(new Date('2026-03-03T08:00:00Z'));
  });
  test('past the retry window: null (refused for good)', () => {
    const later = new Date(first.getTime() + 86_000_000);
    expect(nextRetryAt(30, first, later, 'Europe/London', settings, 0.5)).toBeNull();
  });
});
