/**
 * Income and expenditure arithmetic (docs/api.md "Income and expenditure"):
 * weekly and fortnightly conversion rounded half up, validation with one message per field, the
 * disposable income and the affordable instalment cap, with property tests that a capped offer
 * never exceeds the share of the disposable income. Expected values are worked out by hand.
 */
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { ApiError } from '@dms/errors';
import {
  affordableInstalmentCap,
  affordableOffer,
  disposableIncome,
  MAX_ENTRY_AMOUNT,
  normaliseStatement,
  STATEMENT_GROUPS,
  toMonthly,
  validateStatement,
  type EntryFrequency,
} from '../../../libs/domain/src/income-and-expenditure/index.js';
import { disposableIncomeShare } from '../../../libs/domain/src/organisations/portal-settings.js';

const zero = { amount: 0, frequency: 'monthly' as const };
/** A valid input with every entry 0, then `patch` applied group by group. */
function input(patch: Record<string, Record<string, unknown>> = {}): Record<string, unknown> {
  const out: Record<string, unknown> = { household: { adults: 1, children: 0, vehicles: 0 } };
  for (const [g, entries] of Object.entries(STATEMENT_GROUPS)) out[g] = { ...Object.fromEntries(entries.map((e) => [e, zero])), ...(patch[g] ?? {}) };
  return out;
}

describe('conversion to monthly, rounded half up to the minor unit', () => {
  test.each<[number, EntryFrequency, number]>([
    [10_000, 'weekly', 43_333], // 433,333.33… / 10
    [100, 'weekly', 433], // 433.33
    [6, 'weekly', 26], // 26.0
    [3, 'weekly', 13], // 13.0
    [9, 'weekly', 39], // 39.0
    [15, 'fortnightly', 33], // 32.5 → 33 (half up)
    [3, 'fortnightly', 7], // 6.5 → 7
    [1, 'fortnightly', 2], // 2.1666 → 2
    [1, 'weekly', 4], // 4.333 → 4
    [12_345, 'monthly', 12_345],
    [0, 'weekly', 0],
    [MAX_ENTRY_AMOUNT, 'weekly', 4_333_333_333],
  ])('%i %s → %i a month', (amount, frequency, monthly) => expect(toMonthly({ amount, frequency })).toBe(monthly));

  test('the stored entry keeps the figure entered, its frequency and the monthly figure', () => {
    const s = normaliseStatement(input({ income: { earnings: { amount: 15, frequency: 'fortnightly' } } }));
    expect(s.income.earnings).toEqual({ amount: 15, frequency: 'fortnightly', monthly: 33 });
  });
});

describe('validation: one clear message per field, all at once', () => {
  test('a valid input has no problem', () => expect(validateStatement(input())).toEqual([]));

  test('negative, absurd, fractional amounts and unknown frequencies are each named', () => {
    const errors = validateStatement(
      input({
        income: {
          earnings: { amount: -1, frequency: 'monthly' },
          benefits: { amount: MAX_ENTRY_AMOUNT + 1, frequency: 'weekly' },
          pensions: { amount: 1.5, frequency: 'daily' },
        },
      }),
    );
    expect(errors.map((e) => e.param)).toEqual(['income.earnings.amount', 'income.benefits.amount', 'income.pensions.amount', 'income.pensions.frequency']);
    expect(errors[0]!.message).toMatch(/negative/);
    expect(errors[1]!.message).toMatch(/exceed/);
  });

  test('missing groups, missing entries, unknown fields and bad household counts', () => {
    const bad = input();
    delete bad.flexible_costs;
    (bad.fixed_costs as Record<string, unknown>).housing = undefined;
    (bad.other_debts as Record<string, unknown>).loans = zero;
    bad.household = { adults: 0, children: 2, vehicles: 'one' };
    bad.extra = 1;
    expect(
      validateStatement(bad)
        .map((e) => e.param)
        .sort(),
    ).toEqual(['extra', 'household.adults', 'household.vehicles', 'fixed_costs.housing', 'flexible_costs', 'other_debts.loans'].sort());
    expect(validateStatement(null)).toEqual([{ param: 'statement', message: 'The statement must be an object.' }]);
  });

  test('normaliseStatement throws validation_failed naming the first field and listing all', () => {
    const err = (() => {
      try {
        normaliseStatement(input({ income: { earnings: { amount: -5, frequency: 'monthly' } } }));
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'validation_failed', status: 400, param: 'income.earnings.amount' });
  });
});

describe('disposable income', () => {
  test('income less fixed, flexible, priority and other debts, all monthly', () => {
    const s = normaliseStatement(
      input({
        income: { earnings: { amount: 50_000, frequency: 'weekly' }, benefits: { amount: 10_000, frequency: 'fortnightly' } }, // 216,667 + 21,667
        fixed_costs: { housing: { amount: 90_000, frequency: 'monthly' }, council_tax: { amount: 15_000, frequency: 'monthly' } },
        flexible_costs: { food_and_housekeeping: { amount: 8_000, frequency: 'weekly' } }, // 34,667
        priority_debts: { payments: { amount: 5_000, frequency: 'monthly' } },
        other_debts: { payments: { amount: 2_500, frequency: 'monthly' } },
      }),
    );
    expect(disposableIncome(s)).toBe(216_667 + 21_667 - 90_000 - 15_000 - 34_667 - 5_000 - 2_500);
  });

  test('negative when outgoings exceed income; the cap is then 0 and no offer is made', () => {
    const s = normaliseStatement(input({ fixed_costs: { housing: { amount: 1, frequency: 'monthly' } } }));
    expect(disposableIncome(s)).toBe(-1);
    expect(affordableInstalmentCap(s, 100)).toBe(0);
    expect(affordableOffer(10_000, 0)).toBeNull();
  });

  test('the cap is the share rounded down; a share outside 1-100 is refused', () => {
    const s = normaliseStatement(input({ income: { earnings: { amount: 10_001, frequency: 'monthly' } } }));
    expect(affordableInstalmentCap(s, 100)).toBe(10_001);
    expect(affordableInstalmentCap(s, 50)).toBe(5_000);
    expect(() => affordableInstalmentCap(s, 0)).toThrow(RangeError);
    expect(() => affordableInstalmentCap(s, 101)).toThrow(RangeError);
  });

  test('the share defaults to 100 when the organisation sets none', () => {
    expect(disposableIncomeShare(undefined)).toBe(100);
    expect(disposableIncomeShare({})).toBe(100);
    expect(disposableIncomeShare({ disposable_income_share: 40 })).toBe(40);
  });

  test('an offer spreads the balance evenly within the cap', () => {
    expect(affordableOffer(10_000, 3_000)).toEqual({ instalment_count: 4, amount: 2_500, last_amount: 2_500 });
    expect(affordableOffer(10_001, 3_000)).toEqual({ instalment_count: 4, amount: 2_501, last_amount: 2_498 });
    expect(affordableOffer(1_000_000, 1, 120)).toBeNull();
  });
});

describe('property: a capped offer never exceeds the share of the disposable income', () => {
  const entry = fc.record({
    amount: fc.integer({ min: 0, max: MAX_ENTRY_AMOUNT }),
    frequency: fc.constantFrom<EntryFrequency>('weekly', 'fortnightly', 'monthly'),
  });
  // Costs drawn smaller than income, so most statements leave something and offers are made.
  const cost = fc.record({ amount: fc.integer({ min: 0, max: 200_000 }), frequency: fc.constantFrom<EntryFrequency>('weekly', 'fortnightly', 'monthly') });
  const groupArb = (group: string, entries: readonly string[]) => fc.record(Object.fromEntries(entries.map((e) => [e, group === 'income' ? entry : cost])));
  const statementArb = fc.record({
    household: fc.record({ adults: fc.integer({ min: 1, max: 20 }), children: fc.integer({ min: 0, max: 30 }), vehicles: fc.integer({ min: 0, max: 20 }) }),
    ...Object.fromEntries(Object.entries(STATEMENT_GROUPS).map(([g, entries]) => [g, groupArb(g, entries)])),
  });

  test('every instalment of the offer, and the cap itself, stay within share% of the disposable income', () => {
    fc.assert(
      fc.property(statementArb, fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: 10_000_000_000 }), (raw, share, balance) => {
        const s = normaliseStatement(raw);
        const cap = affordableInstalmentCap(s, share);
        const left = disposableIncome(s);
        expect(cap * 100).toBeLessThanOrEqual(Math.max(0, left) * share);
        const offer = affordableOffer(balance, cap, 1_000_000);
        if (offer === null) return;
        expect(offer.amount * 100).toBeLessThanOrEqual(left * share);
        expect(offer.last_amount).toBeGreaterThan(0);
        expect(offer.last_amount).toBeLessThanOrEqual(offer.amount);
        expect(offer.amount * (offer.instalment_count - 1) + offer.last_amount).toBe(balance);
      }),
      { numRuns: 500 },
    );
  });

  test('monthly conversion is within half a minor unit of the exact figure', () => {
    fc.assert(
      fc.property(entry, (e) => {
        const exact = (e.amount * { weekly: 52, fortnightly: 26, monthly: 12 }[e.frequency]) / 12;
        expect(Math.abs(toMonthly(e) - exact)).toBeLessThanOrEqual(0.5);
      }),
    );
  });
});
