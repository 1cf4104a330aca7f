/**
 * A placement row read without the database (docs/api.md section 16), as the worker's batches read
 * every row before their set-based writes: the bodies `POST /customers` and `POST /debts` would
 * be given, the contact values as stored, and each refusal naming its column, with the code the
 * API's checks give (a telephone number refused by the API's check: test/imports/bad-input.test.ts).
 */
import { describe, expect, test } from '@jest/globals';
import { placementRow, PLACEMENT_HEADER } from '@dms/tools/placement-rows';
import { contactValues, readPlacement } from '../../../libs/domain/src/imports/rows/placement.js';
import { problemsOf } from '../../../libs/domain/src/imports/rows/context.js';
import { PLACEMENT_PARAMS } from '../../../libs/domain/src/imports/rows/placement.js';

const ctx = { organisationId: 'org_000000000000000000000001', currency: 'GBP' as const };
const cells = (over: Record<string, string> = {}) => Object.fromEntries(PLACEMENT_HEADER.map((h, i) => [h, placementRow('ACC-1', over)[i]!]));

/** The problems reading `c` (and its contact values) amounts to, as the worker stores them. */
function refusal(c: Record<string, string>) {
  try {
    contactValues(readPlacement(ctx, c));
  } catch (err) {
    return problemsOf(err, PLACEMENT_PARAMS).map((p) => [p.column, p.code]);
  }
  return [];
}

describe('readPlacement', () => {
  test('a row becomes the customer and debt bodies the API would be given', () => {
    const p = readPlacement(ctx, {
      ...cells({ balance_total: '112.49', balance_principal: '100.49', balance_fees: '12.00', mobile: '' }),
      company: 'Acme Ltd',
    });
    expect(p.accountNumber).toBe('ACC-1');
    expect(p.customer).toMatchObject({ kind: 'company', full_name: 'Acme Ltd', first_name: 'Morgan', last_name: 'Finley', date_of_birth: '1980-10-21' });
    expect(p.columns).toEqual(['email', 'address1']);
    expect(p.debt).toMatchObject({
      organisation_id: ctx.organisationId,
      account_number: 'ACC-1',
      currency: 'GBP',
      breakdown: { principal: 10049, fees: 1200 },
    });
    expect(contactValues(p)).toEqual([
      { value: 'acc-1@example.com', address: null },
      { value: null, address: { line_1: 'Flat 312', line_2: null, city: 'London', county: null, postal_code: 'E1 5JL', country: 'GB' } },
    ]);
  });

  test('one balance_total without parts is one principal item', () => {
    expect(readPlacement(ctx, cells()).debt.breakdown).toEqual({ principal: 10449 });
  });

  test.each([
    [{ balance_total: '1.234' }, 'balance_total', 'invalid_amount'],
    [{ balance_total: '104.49', balance_principal: '100.00', balance_fees: '1.00' }, 'balance_total', 'balance_mismatch'],
    [{ dob: '1980-02-30' }, 'dob', 'invalid_date'],
    [{ country: 'Atlantis' }, 'country', 'invalid_country'],
    [{ country: 'ZZ' }, 'country', 'invalid_country'],
    [{ country: 'Unknown Region' }, 'country', 'invalid_country'],
    [{ country: 'EU' }, 'country', 'invalid_country'],
    [{ email: 'not-an-email' }, 'email', 'validation_failed'],
    [{ email: 'not-an-email', mobile: '' }, 'email', 'validation_failed'],
    [{ city: '' }, 'city', 'missing_value'],
  ])('%j is refused naming its column', (over, column, code) => {
    expect(refusal(cells(over))).toEqual([[column, code]]);
  });

  test('an invalid e-mail address names its column, not the body field it becomes', () => {
    try {
      readPlacement(ctx, cells({ email: 'not-an-email' }));
      throw new Error('accepted');
    } catch (err) {
      expect(problemsOf(err, PLACEMENT_PARAMS)).toEqual([{ column: 'email', code: 'validation_failed', message: 'email must match format "email"' }]);
    }
  });

  test.each([
    ['GB', 'GB'],
    ['gb', 'GB'],
    ['United Kingdom', 'GB'],
    ['UK', 'GB'],
    ['XK', 'XK'],
  ])('country %s is read as %s', (country, code) => {
    expect(contactValues(readPlacement(ctx, cells({ country, mobile: '' })))[1]!.address!.country).toBe(code);
  });
});
