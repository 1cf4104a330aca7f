/**
 * What a customer expands (docs/api.md section 10): `debts`, the customer's visible debts newest
 * first (their references as ids), one batch query per page (operations/expansion.ts).
 */
import { debtsResource, toDebt, type DebtRow } from '@dms/domain/debts';
import { declareExpansions, referencingRows, type ExpansionRegistry } from '../../operations/expansion.js';
import type { CustomerView as Customer } from './schemas.js';

/** The relations of a customer. */
export const CUSTOMER_EXPANSIONS = declareExpansions('customer', {
  debts: referencingRows<Customer, DebtRow>(debtsResource, 'customer_id', (r) => toDebt(r), { expands: 'debt' }),
} satisfies ExpansionRegistry<Customer>);
