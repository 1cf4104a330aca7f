/**
 * The portal's offers (libs/domain/src/portal/offers.ts, docs/api.md section 18 "Offers"): the
 * debt's options over the organisation's, the order, the policy's limits, the share of the
 * disposable income, and properties over random balances and options (fast-check): an offered
 * plan's instalments sum to the balance exactly and never exceed the share a month.
 */
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { effectiveOptions, findPlanOffer, portalOffers, withinWindow, type PlanOffer, type PortalOffer } from '../../../libs/domain/src/portal/offers.js';
import { fitsMonthly } from '../../../libs/domain/src/income-and-expenditure/amounts.js';

const plans = (list: PortalOffer[]) => list.filter((o): o is PlanOffer => o.type === 'plan');
const TODAY = '2026-01-10';

describe('effectiveOptions', () => {
  test('the debt overrides the organisation field by field; absent or null fields keep the organisation’s', () => {
    const org = { pay_later_permitted: true, max_instalments: 6, min_instalment_amount: 500 };
    expect(effectiveOptions(org, { max_instalments: 3, pay_later_permitted: false })).toEqual({
      pay_later_permitted: false,
      max_instalments: 3,
      min_instalment_amount: 500,
    });
    expect(effectiveOptions(org, null)).toEqual(org);
    expect(effectiveOptions(undefined, { settlement_allowed: true })).toEqual({ settlement_allowed: true });
  });
});

describe('portalOffers', () => {
  test('pay in full alone when nothing else is permitted; nothing for a zero balance', () => {
    expect(portalOffers(5000, {}, TODAY)).toEqual([{ type: 'pay_in_full', amount: 5000 }]);
    expect(portalOffers(0, { pay_later_permitted: true }, TODAY)).toEqual([]);
  });

  test('in order: in full, pay later by today + 30 days, plans shortest first, the settlement', () => {
    const list = portalOffers(
      1000,
      { pay_later_permitted: true, payment_plans_permitted: true, max_instalments: 3, settlement_allowed: true, max_discount_percent: 10 },
      TODAY,
    );
    expect(list.map((o) => (o.type === 'plan' ? o.id : o.type))).toEqual([
      'pay_in_full',
      'pay_later',
      'weekly-2',
      'fortnightly-2',
      'monthly-2',
      'weekly-3',
      'fortnightly-3',
      'monthly-3',
      'settlement',
    ]);
    expect(list[1]).toEqual({ type: 'pay_later', amount: 1000, latest_on: '2026-02-09' });
    expect(list.at(-1)).toEqual({ type: 'settlement', amount: 900, discount: 100 });
    // The API's schedule: equal instalments, the last taking the remainder.
    expect(findPlanOffer(list, 'monthly-3')).toEqual({
      type: 'plan',
      id: 'monthly-3',
      frequency: 'monthly',
      instalment_count: 3,
      amounts: [333, 333, 334],
      first_due_latest_on: '2026-02-09',
    });
  });

  test('plans only when permitted, none under the minimum instalment, at most max_instalments', () => {
    expect(plans(portalOffers(1000, { max_instalments: 5 }, TODAY))).toEqual([]);
    const list = plans(portalOffers(1000, { payment_plans_permitted: true, min_instalment_amount: 300, max_instalments: 5 }, TODAY));
    expect(list.map((p) => p.instalment_count)).toEqual([2, 2, 2, 3, 3, 3]);
    expect(plans(portalOffers(1000, { payment_plans_permitted: true, max_instalments: 4 }, TODAY)).at(-1)!.id).toBe('monthly-4');
  });

  test('with a statement, plans costing more than the share a month are left out', () => {
    // 1200 a month: monthly 2 × 600 fits; weekly 2 × 600 is 2600 a month, too much.
    const list = plans(portalOffers(1200, { payment_plans_permitted: true, max_instalments: 2 }, TODAY, 600));
    expect(list.map((p) => p.id)).toEqual(['monthly-2']);
    expect(plans(portalOffers(1200, { payment_plans_permitted: true }, TODAY, 0))).toEqual([]);
  });

  test('findPlanOffer: an unknown or non-plan id is undefined', () => {
    const list = portalOffers(1000, { payment_plans_permitted: true, pay_later_permitted: true }, TODAY);
    expect(findPlanOffer(list, 'monthly-99')).toBeUndefined();
    expect(findPlanOffer(list, 'pay_later')).toBeUndefined();
    expect(findPlanOffer(list, undefined)).toBeUndefined();
  });

  test('property: instalments sum to the balance exactly, each at least the minimum, never above the share', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5_000_000 }),
        fc.record({
          min_instalment_amount: fc.option(fc.integer({ min: 1, max: 100_000 }), { nil: undefined }),
          max_instalments: fc.integer({ min: 1, max: 24 }),
        }),
        fc.option(fc.integer({ min: 0, max: 1_000_000 }), { nil: undefined }),
        (balance, options, cap) => {
          for (const plan of plans(portalOffers(balance, { ...options, payment_plans_permitted: true }, TODAY, cap))) {
            expect(plan.amounts.reduce((a, b) => a + b, 0)).toBe(balance);
            expect(plan.amounts).toHaveLength(plan.instalment_count);
            expect(plan.instalment_count).toBeLessThanOrEqual(options.max_instalments);
            for (const amount of plan.amounts) {
              expect(Number.isInteger(amount)).toBe(true);
              expect(amount).toBeGreaterThanOrEqual(options.min_instalment_amount ?? 1);
              if (cap !== undefined) expect(fitsMonthly({ amount, frequency: plan.frequency }, cap)).toBe(true);
            }
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('withinWindow', () => {
  test.each([
    ['2026-01-10', true],
    ['2026-02-09', true],
    ['2026-02-10', false],
    ['2026-01-09', false],
    ['2026-02-30', false],
    ['10/01/2026', false],
    [undefined, false],
  ])('%s → %s', (day, expected) => {
    expect(withinWindow(day, TODAY)).toBe(expected);
  });
});
