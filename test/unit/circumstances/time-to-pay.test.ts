/**
 * The schedule rewrites of the customer's time to pay (docs/api.md section 18), pure: a delay
 * marks the next unpaid instalment and shifts it and those after it; a change of day re-dates the
 * unpaid instalments from the new date at the plan's frequency (monthly: the month's last day
 * when shorter), marks the next one, and leaves paid instalments and every amount as they were.
 */
import { expect, test } from '@jest/globals';
import { allocate, delayUnpaid, freshInstalments, nextUnpaid, redateUnpaid } from '../../../libs/domain/src/payment-plans/instalments.js';

const plan = () =>
  freshInstalments([
    { sequence: 1, due_on: '2026-01-31', amount: 300 },
    { sequence: 2, due_on: '2026-02-28', amount: 300 },
    { sequence: 3, due_on: '2026-03-31', amount: 400 },
  ]);

test('a delay marks the next unpaid instalment only, and shifts it and the later ones', () => {
  const paidFirst = allocate(plan(), 300).schedule;
  const delayed = delayUnpaid(paidFirst, 14, 'delayed');
  expect(delayed.map((i) => [i.sequence, i.due_on, i.delayed ?? false])).toEqual([
    [1, '2026-01-31', false],
    [2, '2026-03-14', true],
    [3, '2026-04-14', false],
  ]);
  expect(nextUnpaid(delayed)?.sequence).toBe(2);
  // The tenant's delay (no mark) marks nothing.
  expect(delayUnpaid(paidFirst, 3).some((i) => i.delayed)).toBe(false);
});

test('a change of day re-dates the unpaid instalments at the frequency; amounts and paid ones stay', () => {
  const partly = allocate(plan(), 350).schedule;
  const monthly = redateUnpaid(partly, 'monthly', '2026-03-31', 'day_changed');
  expect(monthly.map((i) => [i.sequence, i.due_on, i.amount, i.amount_paid, i.day_changed ?? false])).toEqual([
    [1, '2026-01-31', 300, 300, false],
    [2, '2026-03-31', 300, 50, true],
    [3, '2026-04-30', 400, 0, false],
  ]);
  const weekly = redateUnpaid(plan(), 'weekly', '2026-02-02', 'day_changed');
  expect(weekly.map((i) => i.due_on)).toEqual(['2026-02-02', '2026-02-09', '2026-02-16']);
  // Later payments keep the marks (the once-per-instalment rule reads them).
  expect(allocate(weekly, 100).schedule[0]!.day_changed).toBe(true);
});
