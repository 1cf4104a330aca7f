/**
 * Payout pure logic (docs/api.md section 14): the platform fee's rounding rule and bounds, the
 * payout machine, the schedule defaults and the RFC 4180 reconciliation file. Expected values are
 * written out by hand.
 */
import { describe, expect, test } from '@jest/globals';
import { ApiError } from '@dms/errors';
import { platformFee } from '../../../libs/domain/src/payouts/fees.js';
import { PAYOUT_MACHINE } from '../../../libs/domain/src/payouts/states.js';
import { PAYOUT_DEFAULTS, payoutSettings } from '../../../libs/domain/src/organisations/payout-settings.js';
import { scheduleIntervalSql } from '../../../libs/domain/src/payouts/accounts.js';
import { reconciliationCsv } from '../../../services/api/src/resources/payouts/reconciliation.js';

describe('platform fee: basis points rounded half up, at least the minimum, never more than the payment', () => {
  test.each([
    [10_000, 250, 0, 250],
    [1_030, 250, 0, 26], // 25.75 → 26
    [1_010, 250, 0, 25], // 25.25 → 25
    [1_020, 250, 0, 26], // 25.5 → 26 (half up)
    [500, 250, 20, 20], // 12.5 → 13, below the minimum
    [10, 250, 20, 10], // the minimum would exceed the payment
    [7, 0, 0, 0],
    [100_000_000_000_000, 10_000, 0, 100_000_000_000_000], // the largest amount at 100 %: exact
    [33_251_339_796_386, 1_443, 0, 4_798_168_332_618], // the product passes 2^53: integer arithmetic, not a float's 4,798,168,332,619
  ])('%i at %i bp, minimum %i → %i', (amount, bps, min, fee) => {
    expect(platformFee(amount, { fee_basis_points: bps, fee_minimum: min })).toBe(fee);
  });
});

describe('the payout machine', () => {
  test('pending → in_transit → paid | failed; paid and failed are terminal', () => {
    expect(PAYOUT_MACHINE.movesFrom('pending')).toEqual(['in_transit', 'paid', 'failed']);
    expect(PAYOUT_MACHINE.movesFrom('in_transit')).toEqual(['paid', 'failed']);
    expect(PAYOUT_MACHINE.movesFrom('paid')).toEqual([]);
    expect(PAYOUT_MACHINE.movesFrom('failed')).toEqual([]);
  });

  test('a forbidden move is 409 invalid_state_transition naming where it is allowed from', () => {
    expect(() => PAYOUT_MACHINE.require('paid', 'failed')).toThrow(ApiError);
    expect(() => PAYOUT_MACHINE.require('failed', 'in_transit')).toThrow(/allowed from: pending/);
  });
});

describe('settings', () => {
  test('defaults: weekly, 150 bp, 20 minor units; given keys win', () => {
    expect(payoutSettings({})).toEqual(PAYOUT_DEFAULTS);
    expect(payoutSettings({ payouts: { schedule: 'daily' } })).toEqual({ ...PAYOUT_DEFAULTS, schedule: 'daily' });
  });

  test('the schedule interval SQL names each schedule once and defaults to weekly', () => {
    const sql = scheduleIntervalSql('o');
    expect(sql).toContain("coalesce(o.configurations->'payouts'->>'schedule', 'weekly')");
    for (const interval of ["'1 day'", "'7 days'", "'1 month'"]) expect(sql).toContain(interval);
  });
});

describe('reconciliation file', () => {
  test('RFC 4180: header, CRLF, quotes doubled, fields with commas quoted, nulls empty', () => {
    const text = reconciliationCsv([
      {
        item: 'bi_1',
        type: 'payment',
        payment: 'pay_1',
        debt: 'deb_1',
        customer_reference: 'A, "B"',
        currency: 'GBP',
        gross: 1000,
        fee: 25,
        net: 975,
        created_at: '2026-11-25T00:00:00.000Z',
      },
      {
        item: 'bi_2',
        type: 'adjustment',
        payment: null,
        debt: null,
        customer_reference: null,
        currency: 'GBP',
        gross: -5,
        fee: 0,
        net: -5,
        created_at: '2026-11-25T00:00:00.000Z',
      },
    ]);
    expect(text).toBe(
      'item,type,payment,debt,customer_reference,currency,gross,fee,net,created_at\r\n' +
        'bi_1,payment,pay_1,deb_1,"A, ""B""",GBP,1000,25,975,2026-11-25T00:00:00.000Z\r\n' +
        'bi_2,adjustment,,,,GBP,-5,0,-5,2026-11-25T00:00:00.000Z\r\n',
    );
  });
});
