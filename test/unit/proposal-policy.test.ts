/**
 * The portal's policy check for a proposed plan (docs/api.md section 18): within the policy when
 * plans are permitted, the instalment is at least `min_instalment_amount` (or the whole balance when
 * smaller) and the instalments are at most `max_instalments` (defaults 1 and 12); else a proposal.
 */
import { describe, expect, test } from '@jest/globals';
import { instalmentsFor, withinPolicy } from '@dms/domain/proposals';

const policy = { payment_plans_permitted: true, min_instalment_amount: 1_000, max_instalments: 6 };

describe('withinPolicy', () => {
  test('counts instalments with the last taking the remainder', () => {
    expect(instalmentsFor(10_000, 3_000)).toBe(4);
    expect(instalmentsFor(10_000, 10_000)).toBe(1);
    expect(instalmentsFor(10_000, 700)).toBe(15);
  });

  test('is within at the edges of the policy and outside past them', () => {
    expect(withinPolicy(6_000, 1_000, policy)).toBe(true);
    expect(withinPolicy(6_001, 1_000, policy)).toBe(false);
    expect(withinPolicy(5_000, 999, policy)).toBe(false);
    expect(withinPolicy(500, 500, policy)).toBe(true);
  });

  test('uses the defaults (minimum 1, 12 instalments) and refuses everything when plans are not permitted', () => {
    expect(withinPolicy(12_000, 1_000, { payment_plans_permitted: true })).toBe(true);
    expect(withinPolicy(12_001, 1_000, { payment_plans_permitted: true })).toBe(false);
    expect(withinPolicy(6_000, 1_000, { ...policy, payment_plans_permitted: false })).toBe(false);
    expect(withinPolicy(6_000, 1_000, {})).toBe(false);
  });
});
