/**
 * Offers for a balance (libs/domain/src/payment-plans/offers.ts): the remainder rule, the policy's
 * limits, and properties over random balances and policies (fast-check).
 */
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { offers, splitEvenly, type Offer } from '../../../libs/domain/src/payment-plans/offers.js';

const plans = (list: Offer[]) => list.filter((o): o is Extract<Offer, { type: 'plan' }> => o.type === 'plan');

describe('splitEvenly: the first balance mod n instalments pay one unit more', () => {
  test.each([
    [1000, 3, [334, 333, 333]],
    [1001, 2, [501, 500]],
    [900, 3, [300, 300, 300]],
  ])('%i in %i → %j', (balance, n, expected) => {
    expect(splitEvenly(balance, n)).toEqual(expected);
  });
  test('n < 1 throws', () => {
    expect(() => splitEvenly(10, 0)).toThrow(RangeError);
  });
});

describe('offers', () => {
  test('pay in full only when nothing else is permitted; none for a zero balance', () => {
    expect(offers(5000, {}, '2026-01-10')).toEqual([{ type: 'pay_in_full', amount: 5000 }]);
    expect(offers(0, { pay_later_permitted: true }, '2026-01-10')).toEqual([]);
  });

  test('pay later by today + 30 days; settlement rounded in the customer’s disfavour', () => {
    const list = offers(999, { pay_later_permitted: true, settlement_allowed: true, max_discount_percent: 10 }, '2026-01-10');
    expect(list).toEqual([
      { type: 'pay_in_full', amount: 999 },
      { type: 'pay_later', amount: 999, latest_on: '2026-02-09' },
      { type: 'settlement', amount: 900, discount: 99 },
    ]);
  });

  test('plans: 2..max instalments, shortest first, each at least the minimum', () => {
    const list = plans(offers(10_000, { payment_plans_permitted: true, min_instalment_amount: 3000, max_instalments: 6 }, '2026-01-31'));
    expect(list.map((p) => [p.instalment_count, p.frequency])).toEqual([
      [2, 'weekly'],
      [2, 'fortnightly'],
      [2, 'monthly'],
      [3, 'weekly'],
      [3, 'fortnightly'],
      [3, 'monthly'],
    ]);
    expect(list[5]).toMatchObject({ amounts: [3334, 3333, 3333], first_due_latest_on: '2026-03-02', last_due_on: '2026-05-02' });
  });

  test('property: every plan sums to the balance, respects min and max, counts ascend', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 2, max: 36 }), (balance, min, max) => {
        const list = plans(offers(balance, { payment_plans_permitted: true, min_instalment_amount: min, max_instalments: max }, '2026-02-28'));
        let previous = 0;
        for (const plan of list) {
          expect(plan.amounts.reduce((a, b) => a + b, 0)).toBe(balance);
          expect(plan.amounts.length).toBe(plan.instalment_count);
          expect(plan.instalment_count).toBeGreaterThanOrEqual(2);
          expect(plan.instalment_count).toBeLessThanOrEqual(max);
          expect(Math.min(...plan.amounts)).toBeGreaterThanOrEqual(min);
          expect(plan.instalment_count).toBeGreaterThanOrEqual(previous);
          previous = plan.instalment_count;
        }
        expect(list.length).toBe(3 * Math.max(0, Math.min(max, Math.floor(balance / min)) - 1));
      }),
    );
  });
});
