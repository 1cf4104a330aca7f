/**
 * Schedule maths, instalment allocation and the payment / plan / instalment transition tables
 * (docs/api.md sections 8 and 9), pure. Expected values are written out from the reference.
 */
import { describe, expect, test } from '@jest/globals';
import { ApiError } from '@dms/errors';
import { addDays, addMonths, buildSchedule, daysBetween, ScheduleError } from '../../../libs/domain/src/payment-plans/schedule.js';
import { allocate, delayUnpaid, freshInstalments, markMissed, nextDueOn, rescheduleUnpaid } from '../../../libs/domain/src/payment-plans/instalments.js';
import { isMissed, requirePlanTransition, shownInstalmentStatus } from '../../../libs/domain/src/payment-plans/states.js';
import { requirePaymentTransition, PAYMENT_STATUSES, type PaymentMove } from '../../../libs/domain/src/payments/states.js';
import { breakdownItems, signError, summaryDeltas } from '../../../libs/domain/src/line-items/kinds.js';

describe('calendar months', () => {
  test.each([
    ['2026-01-31', 1, '2026-02-28'],
    ['2028-01-31', 1, '2028-02-29'],
    ['2026-01-31', 2, '2026-03-31'],
    ['2026-01-30', 1, '2026-02-28'],
    ['2026-03-31', 1, '2026-04-30'],
    ['2026-12-15', 1, '2027-01-15'],
    ['2026-08-31', 6, '2027-02-28'],
  ])('%s + %d month(s) = %s', (start, n, expected) => expect(addMonths(start, n)).toBe(expected));

  test.each([
    ['2026-01-01', '2026-01-01', 0],
    ['2026-02-27', '2026-03-02', 3],
    ['2028-02-28', '2028-03-01', 2],
    ['2026-03-28', '2026-03-30', 2], // across the clocks' change: calendar days, not 24-hour spans
    ['2026-12-31', '2026-12-01', -30],
  ])('daysBetween(%s, %s) = %d, the inverse of addDays', (from, to, days) => {
    expect(daysBetween(from, to)).toBe(days);
    expect(addDays(from, days)).toBe(to);
  });

  test('a monthly schedule from 31 January keeps the month end and comes back to the 31st', () => {
    const s = buildSchedule({ amount: 300, frequency: 'monthly', startOn: '2026-01-31', instalmentCount: 3 });
    expect(s.map((i) => i.due_on)).toEqual(['2026-01-31', '2026-02-28', '2026-03-31']);
  });
});

describe('buildSchedule', () => {
  test('by count: equal instalments, the last takes the remainder', () => {
    expect(buildSchedule({ amount: 10000, frequency: 'weekly', startOn: '2026-05-01', instalmentCount: 3 })).toEqual([
      { sequence: 1, due_on: '2026-05-01', amount: 3333 },
      { sequence: 2, due_on: '2026-05-08', amount: 3333 },
      { sequence: 3, due_on: '2026-05-15', amount: 3334 },
    ]);
  });

  test('by amount: fortnightly, last is what is left', () => {
    const s = buildSchedule({ amount: 1000, frequency: 'fortnightly', startOn: '2026-12-25', instalmentAmount: 300 });
    expect(s.map((i) => [i.due_on, i.amount])).toEqual([
      ['2026-12-25', 300],
      ['2027-01-08', 300],
      ['2027-01-22', 300],
      ['2027-02-05', 100],
    ]);
  });

  test('refusals name the field', () => {
    const err = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as ScheduleError).param;
      }
      return undefined;
    };
    expect(err(() => buildSchedule({ amount: 2, frequency: 'weekly', startOn: '2026-01-01', instalmentCount: 3 }))).toBe('instalment_count');
    expect(err(() => buildSchedule({ amount: 10000, frequency: 'weekly', startOn: '2026-01-01', instalmentAmount: 1 }))).toBe('instalment_amount');
    expect(err(() => buildSchedule({ amount: 0, frequency: 'weekly', startOn: '2026-01-01', instalmentCount: 1 }))).toBe('amount');
  });
});

describe('instalments', () => {
  const fresh = () => freshInstalments(buildSchedule({ amount: 900, frequency: 'weekly', startOn: '2026-01-01', instalmentCount: 3 }));

  test('allocation pays the oldest first and never takes more than is unpaid', () => {
    const { schedule, applied } = allocate(fresh(), 400);
    expect(applied).toBe(400);
    expect(schedule.map((i) => [i.amount_paid, i.status])).toEqual([
      [300, 'paid'],
      [100, 'upcoming'],
      [0, 'upcoming'],
    ]);
    expect(nextDueOn(schedule)).toBe('2026-01-08');
    const rest = allocate(schedule, 10000);
    expect(rest.applied).toBe(500);
    expect(nextDueOn(rest.schedule)).toBeNull();
  });

  test('missed after grace days, delay, and reschedule of the unpaid part', () => {
    expect(isMissed('upcoming', '2026-01-01', 5, '2026-01-06')).toBe(false);
    expect(isMissed('upcoming', '2026-01-01', 5, '2026-01-07')).toBe(true);
    expect(markMissed(fresh(), 5, '2026-01-07').schedule.map((i) => i.status)).toEqual(['missed', 'upcoming', 'upcoming']);
    expect(markMissed(fresh(), 5, '2026-01-06').missed).toBe(false);
    const paid = allocate(fresh(), 400).schedule;
    expect(delayUnpaid(paid, 3).map((i) => i.due_on)).toEqual(['2026-01-01', '2026-01-11', '2026-01-18']);
    const re = rescheduleUnpaid(paid, { frequency: 'monthly', startOn: '2026-02-01', instalmentCount: 2 });
    expect(re.map((i) => [i.sequence, i.amount, i.amount_paid, i.status])).toEqual([
      [1, 300, 300, 'paid'],
      [2, 100, 100, 'paid'],
      [3, 250, 0, 'upcoming'],
      [4, 250, 0, 'upcoming'],
    ]);
    expect(shownInstalmentStatus('upcoming', '2026-01-01', '2026-01-01')).toBe('due');
    expect(shownInstalmentStatus('upcoming', '2026-01-02', '2026-01-01')).toBe('upcoming');
  });
});

describe('transition tables', () => {
  const EXPECTED: Record<PaymentMove, string[]> = { succeed: ['pending'], fail: ['pending'], cancel: ['pending'], refund: ['succeeded', 'partially_refunded'] };
  test.each(PAYMENT_STATUSES.flatMap((s) => (Object.keys(EXPECTED) as PaymentMove[]).map((m) => [s, m] as const)))('payment %s + %s', (status, move) => {
    if (EXPECTED[move].includes(status)) expect(() => requirePaymentTransition(status, move)).not.toThrow();
    else expect(() => requirePaymentTransition(status, move)).toThrow(ApiError);
  });

  test('refund leads to refunded when all is refunded, else partially_refunded', () => {
    expect(requirePaymentTransition('succeeded', 'refund', true)).toBe('refunded');
    expect(requirePaymentTransition('partially_refunded', 'refund', false)).toBe('partially_refunded');
  });

  test('only an active plan moves', () => {
    expect(requirePlanTransition('active', 'complete')).toBe('completed');
    expect(requirePlanTransition('active', 'break')).toBe('broken');
    expect(requirePlanTransition('active', 'cancel')).toBe('canceled');
    for (const s of ['completed', 'broken', 'canceled'] as const) expect(() => requirePlanTransition(s, 'cancel')).toThrow(ApiError);
  });
});

describe('line item kinds', () => {
  test('signs and buckets', () => {
    expect(signError('debt', 1)).toBeNull();
    expect(signError('credit', -1)).toBeNull();
    expect(signError('discount', 1)).toMatch(/negative/);
    expect(signError('vat', 0)).toMatch(/0/);
    expect(
      summaryDeltas([
        { kind: 'credit', amount: -5 },
        { kind: 'discount', amount: -7 },
        { kind: 'refund', amount: 3 },
        { kind: 'creditor_refund', amount: -1 },
      ]),
    ).toMatchObject({ amount_discounts: -12, amount_refunds: 2 });
    expect(breakdownItems({ principal: 10, fees: 0 })).toEqual([{ kind: 'debt', amount: 10 }]);
  });
});
