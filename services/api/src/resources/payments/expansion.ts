/**
 * What a payment expands (docs/api.md section 10): `debt` in place of its id (the debt's own
 * references stay ids), one batch query per page (operations/expansion.ts). The payment plan
 * relation of issue 10 is added here as one entry.
 */
import { tenantRows } from '../../db/scoped.js';
import { byId, type ExpansionRegistry } from '../../operations/expansion.js';
import type { DebtRow } from '../debts/schemas.js';
import { toDebt } from '../debts/store.js';
import type { Payment } from './schemas.js';

/** The relations of a payment. */
export const PAYMENT_EXPANSIONS = {
  debt: {
    key: (p) => p.debt as string,
    load: async (db, tenantId, ids) => byId((await tenantRows(db, 'debts', tenantId).whereIn('debts.id', ids)) as DebtRow[], (r) => toDebt(r)),
  },
} satisfies ExpansionRegistry<Payment>;
