/**
 * The personal-data box (libs/domain/src/kernel/personal-box.ts, docs/api.md section 20): using it
 * before a service sets it is a clear error; sealed values open to the same value, a legacy clear
 * value is answered when there is no ciphertext; a statement's details seal, open and clear
 * (libs/domain/src/income-and-expenditure/sealed.ts).
 */
import { randomBytes } from 'node:crypto';
import { expect, test } from '@jest/globals';
import { openPersonal, personalDataBox, sealPersonal, usePersonalDataKey } from '@dms/domain/kernel';
import { birthDateColumns, birthDateOf } from '@dms/domain/customers';
import { clearedDetails, detailsOf, sealedDetailsColumns, type StatementDetails } from '@dms/domain/income-and-expenditure';

test('reading the box before it is set throws naming the remedy', () => {
  expect(() => personalDataBox()).toThrow(/usePersonalDataBox/);
  expect(() => sealPersonal('1980-01-01')).toThrow(/personal data box not set/);
});

test('values seal to ciphertexts that open to the same value; a clear legacy value is read when nothing is sealed', () => {
  usePersonalDataKey(randomBytes(32).toString('base64'));
  const columns = birthDateColumns('1980-03-27');
  expect(columns.date_of_birth).toBeNull();
  expect(columns.date_of_birth_encrypted).toMatch(/^v1\./);
  expect(columns.date_of_birth_encrypted).not.toContain('1980');
  expect(birthDateOf(columns)).toBe('1980-03-27');
  expect(birthDateOf({ date_of_birth: '1970-01-01', date_of_birth_encrypted: null })).toBe('1970-01-01');
  expect(birthDateColumns(null)).toEqual({ date_of_birth: null, date_of_birth_encrypted: null });
  expect(openPersonal(null)).toBeNull();
  // A key that is not the one in use cannot open it.
  const sealed = sealPersonal('x')!;
  usePersonalDataKey(randomBytes(32).toString('base64'));
  expect(() => openPersonal(sealed)).toThrow(/no key/);
});

test("a statement's details seal together, open the same, and clear to zero entries with their keys", () => {
  usePersonalDataKey(randomBytes(32).toString('base64'));
  const entry = (amount: number) => ({ amount, frequency: 'weekly' as const, monthly: Math.round((amount * 52) / 12) });
  const details = {
    income: { earnings: entry(50_000) },
    fixed_costs: { housing: entry(20_000) },
    flexible_costs: {},
    priority_debts: {},
    other_debts: {},
  } as unknown as StatementDetails;
  const columns = sealedDetailsColumns(details);
  expect(columns).toMatchObject({ income: null, fixed_costs: null, flexible_costs: null, priority_debts: null, other_debts: null });
  expect(columns.details_encrypted).not.toContain('50000');
  expect(detailsOf(columns)).toEqual(details);
  expect(detailsOf({ ...details, details_encrypted: null })).toEqual(details);
  const zero = { amount: 0, frequency: 'monthly', monthly: 0 };
  expect(clearedDetails(details)).toEqual({
    income: { earnings: zero },
    fixed_costs: { housing: zero },
    flexible_costs: {},
    priority_debts: {},
    other_debts: {},
  });
});
