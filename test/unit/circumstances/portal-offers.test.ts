/**
 * The portal's time-to-pay offers and date answers (docs/api.md section 18, "Your payment plan"
 * and "Breathing space"), pure: the 14 dates a next instalment may be delayed to, the dates its
 * day may change to (today up to the day before the following instalment, its own date left
 * out), none once used; and the start dates a breathing-space form accepts. Expected values by hand.
 */
import { describe, expect, test } from '@jest/globals';
import { timeToPayOffers } from '../../../libs/domain/src/portal/plan.js';
import type { Instalment } from '../../../libs/domain/src/payment-plans/instalments.js';
import { parseDay } from '../../../services/portal/src/days.js';

const next = (due_on: string, marks: Partial<Pick<Instalment, 'delayed' | 'day_changed'>> = {}): Instalment => ({
  sequence: 1,
  due_on,
  amount: 5000,
  amount_paid: 0,
  status: 'upcoming',
  ...marks,
});

describe('timeToPayOffers', () => {
  test('a weekly plan: 14 delay dates after the due date; day dates from today to the day before the next week, without the due date', () => {
    const offers = timeToPayOffers({ frequency: 'weekly' }, next('2026-12-30'), '2026-12-28');
    expect(offers.delayDates).toHaveLength(14);
    expect(offers.delayDates[0]).toBe('2026-12-31');
    expect(offers.delayDates.at(-1)).toBe('2027-01-13');
    expect(offers.dayDates).toEqual(['2026-12-28', '2026-12-29', '2026-12-31', '2027-01-01', '2027-01-02', '2027-01-03', '2027-01-04', '2027-01-05']);
  });

  test('a monthly plan offers every day up to the month after; a due date already past starts at today', () => {
    const offers = timeToPayOffers({ frequency: 'monthly' }, next('2026-01-31'), '2026-02-10');
    expect(offers.dayDates[0]).toBe('2026-02-10');
    // 2026-01-31 + 1 month is the month's last day, 2026-02-28.
    expect(offers.dayDates.at(-1)).toBe('2026-02-27');
  });

  test('once used, each is offered no more; with nothing unpaid, nothing', () => {
    expect(timeToPayOffers({ frequency: 'weekly' }, next('2026-12-30', { delayed: true }), '2026-12-28').delayDates).toEqual([]);
    expect(timeToPayOffers({ frequency: 'weekly' }, next('2026-12-30', { day_changed: true }), '2026-12-28').dayDates).toEqual([]);
    expect(timeToPayOffers({ frequency: 'weekly' }, undefined, '2026-12-28')).toEqual({ delayDates: [], dayDates: [] });
  });
});

describe('parseDay', () => {
  test.each([
    ['2026-03-27', '2026-03-27'],
    ['27/03/2026', '2026-03-27'],
    ['7/3/2026', '2026-03-07'],
    [' 2024-02-29 ', '2024-02-29'],
  ])('%j is %s', (given, day) => expect(parseDay(given)).toBe(day));

  test.each(['', 'yesterday', '2026-02-30', '31/02/2026', '2026-13-01', '03/27/2026', '27-03-2026'])('%j is not a date', (given) =>
    expect(parseDay(given)).toBeUndefined(),
  );
});
