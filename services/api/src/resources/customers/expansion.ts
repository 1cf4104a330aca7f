/**
 * What a customer expands (docs/api.md section 10): `debts`, the customer's visible debts newest
 * first (their references as ids), one batch query per page (operations/expansion.ts).
 */
import { tenantRows } from '../../db/scoped.js';
import { groupRows, type ExpansionRegistry } from '../../operations/expansion.js';
import type { DebtRow } from '../debts/schemas.js';
import { toDebt } from '../debts/store.js';
import type { Customer } from './schemas.js';

/** The relations of a customer. */
export const CUSTOMER_EXPANSIONS = {
  debts: {
    key: (c) => c.id,
    load: async (db, tenantId, ids) => {
      const rows = (await tenantRows(db, 'debts', tenantId).whereIn('debts.customer_id', ids).orderBy('debts.seq', 'desc')) as DebtRow[];
      return groupRows(rows, (r) => r.customer_id, (r) => toDebt(r));
    },
    missing: () => [],
  },
} satisfies ExpansionRegistry<Customer>;
