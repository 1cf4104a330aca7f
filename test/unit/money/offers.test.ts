/**
 * Offers for a balance (libs/domain/src/payment-plans/offers.ts): the remainder rule, the policy's
 * limits, and properties over random balances and policies (fast-check); with a statement
 * (docs/api.md section 18), plans held to the share of the disposable income, the shortest
 * affordable one offered beyond the policy, with a property that no plan ever exceeds the share.
 */
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { offers, splitEvenly, MAX_AFFORDABLE_INSTALMENTS, type Offer } from '../../../libs/domain/src/payment-plans/offers.js';
import {
  affordableInstalmentCap,
  disposableIncome,
  normaliseStatement,
  STATEMENT_GROUPS,
  type EntryFrequency,
} from '../../../libs/domain/src/income-and-expenditure/index.js';

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

const PER_YEAR: Record<EntryFrequency, number> = { weekly: 52, fortnightly: 26, monthly: 12 };

describe('offers capped by a statement', () => {
  const policy = { payment_plans_permitted: true, min_instalment_amount: 3000, max_instalments: 3 };

  test('only plans within the cap a month; the shortest affordable monthly plan beyond the policy', () => {
    // 5,000 a month: 2 × 5,000 monthly fits exactly (weekly 5,000 × 52 / 12 = 21,666.67 does not), 3 × 3,334 monthly fits.
    expect(plans(offers(10_000, policy, '2026-01-31', { cap: 5_000 })).map((p) => [p.instalment_count, p.frequency])).toEqual([
      [2, 'monthly'],
      [3, 'monthly'],
    ]);
    // 2,000 a month: nothing of the policy fits; 5 monthly instalments of 2,000, beyond max_instalments 3.
    const beyond = plans(offers(10_000, policy, '2026-01-31', { cap: 2_000 }));
    expect(beyond).toEqual([
      {
        type: 'plan',
        frequency: 'monthly',
        instalment_count: 5,
        amounts: [2000, 2000, 2000, 2000, 2000],
        first_due_latest_on: '2026-03-02',
        last_due_on: '2026-07-02',
      },
    ]);
    // 1,000 a week fits a cap of 4,334 (52,000 ≤ 52,008): weekly plans are compared exactly, not rounded.
    expect(
      plans(offers(2_000, { payment_plans_permitted: true }, '2026-01-31', { cap: 4_334 })).some((p) => p.frequency === 'weekly' && p.instalment_count === 2),
    ).toBe(true);
    expect(
      plans(offers(2_000, { payment_plans_permitted: true }, '2026-01-31', { cap: 4_333 })).some((p) => p.frequency === 'weekly' && p.instalment_count === 2),
    ).toBe(false);
  });

  test('no plan when nothing is left, when plans are not permitted, or beyond ten years; pay in full stays', () => {
    expect(offers(10_000, policy, '2026-01-31', { cap: 0 })).toEqual([{ type: 'pay_in_full', amount: 10_000 }]);
    expect(offers(10_000, { ...policy, payment_plans_permitted: false }, '2026-01-31', { cap: 2_000 })).toEqual([{ type: 'pay_in_full', amount: 10_000 }]);
    expect(plans(offers(10_000, policy, '2026-01-31', { cap: Math.floor(10_000 / (MAX_AFFORDABLE_INSTALMENTS + 1)) }))).toEqual([]);
    // A cap above the weekly cost of the largest plan instalment (5,000 × 52 / 12): every plan of the policy is affordable, none is added.
    expect(plans(offers(10_000, policy, '2026-01-31', { cap: 21_667 }))).toEqual(plans(offers(10_000, policy, '2026-01-31')));
  });

  const cost = fc.record({ amount: fc.integer({ min: 0, max: 150_000 }), frequency: fc.constantFrom<EntryFrequency>('weekly', 'fortnightly', 'monthly') });
  const income = fc.record({ amount: fc.integer({ min: 0, max: 400_000 }), frequency: fc.constantFrom<EntryFrequency>('weekly', 'fortnightly', 'monthly') });
  const statementArb = fc.record({
    household: fc.constant({ adults: 1, children: 0, vehicles: 0 }),
    ...Object.fromEntries(
      Object.entries(STATEMENT_GROUPS).map(([g, entries]) => [g, fc.record(Object.fromEntries(entries.map((e) => [e, g === 'income' ? income : cost])))]),
    ),
  });
  const policyArb = fc.record({
    payment_plans_permitted: fc.constant(true),
    min_instalment_amount: fc.integer({ min: 1, max: 50_000 }),
    max_instalments: fc.integer({ min: 2, max: 36 }),
  });

  test('property: no plan instalment ever costs more a month than share% of the disposable income; an affordable plan is always offered', () => {
    fc.assert(
      fc.property(statementArb, fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: 5_000_000 }), policyArb, (raw, share, balance, policy) => {
        const statement = normaliseStatement(raw);
        const left = disposableIncome(statement);
        const cap = affordableInstalmentCap(statement, share);
        const list = plans(offers(balance, policy, '2026-02-28', { cap }));
        for (const plan of list) {
          expect(plan.amounts.reduce((a, b) => a + b, 0)).toBe(balance);
          // monthly cost × 100 ≤ disposable income × share, exactly: amount × periods a year × 100 ≤ left × share × 12.
          for (const amount of plan.amounts) expect(amount * PER_YEAR[plan.frequency] * 100).toBeLessThanOrEqual(left * share * 12);
        }
        const shortest = cap > 0 ? Math.ceil(balance / cap) : Infinity;
        if (shortest >= 2 && shortest <= MAX_AFFORDABLE_INSTALMENTS)
          expect(list.some((p) => p.frequency === 'monthly' && p.instalment_count === shortest)).toBe(true);
        if (cap === 0) expect(list).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
