/**
 * Income and expenditure statements as stored (docs/api.md section 19): objects of their own under
 * a debt (`/debts/{id}/income_and_expenditures`), never changed once given (a new circumstance is a
 * new statement; the latest one counts). They share the debts' scopes.
 */
import { defineResource } from '../kernel/resource.js';

/** The `income_and_expenditures` table (migration 087). */
export const incomeAndExpendituresResource = defineResource({
  object: 'income_and_expenditure',
  noun: 'income and expenditure statement',
  table: 'income_and_expenditures',
  idPrefix: 'iae',
  events: ['income_and_expenditure.created'],
});
