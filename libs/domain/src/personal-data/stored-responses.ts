/**
 * Stored idempotent responses in an erasure (docs/api.md sections 3 and 20, "Erasure"): the
 * responses kept for replaying a repeated `Idempotency-Key` are sealed with `SECRETS_KEY`, so no
 * search of their text can find a customer in them. Each of the tenant's stored responses is
 * opened instead; one concerns the customer when its request path or its body names the customer
 * or one of its rows (debts, contact details, communications, payments, plans, statements), or
 * its body holds a copy of one of their personal values. Such a response is removed (body and
 * headers null) and its key marked `erased_at`: a replay then answers
 * `410 idempotency_response_erased`, never the person's data, and never runs the request again.
 */
import type { Knex } from '@dms/db';
import { openPersonal } from '../kernel/personal-box.js';
import { incomeAndExpendituresResource } from '../income-and-expenditure/resource.js';
import { paymentsResource } from '../payments/resource.js';
import { paymentPlansResource } from '../payment-plans/resource.js';
import { contactDetailsResource } from '../contact-details/resource.js';
import { communicationsResource } from '../communications/resource.js';
import { scrubStored } from './scrub.js';
import { debtsOf, ofCustomer, ofCustomerDebts } from './related.js';

type Trx = Knex.Transaction;

/** Where stored responses are: `idempotency_keys.response_body` (the erasure test's registry entry). */
export const STORED_RESPONSES = { table: 'idempotency_keys', column: 'response_body' } as const;

/** How many stored responses are opened per page. */
const PAGE = 500;

/** The ids of the customer and of every row of theirs a response may name. */
async function idsOfCustomer(trx: Trx, tenantId: string, customerId: string): Promise<string[]> {
  // One after another: a transaction is one connection, which runs one query at a time.
  const ids = [customerId];
  ids.push(...(await debtsOf(trx, tenantId, customerId).pluck('debts.id')));
  ids.push(...(await ofCustomer(trx, contactDetailsResource, tenantId, customerId).pluck('customer_contact_details.id')));
  ids.push(...(await ofCustomer(trx, communicationsResource, tenantId, customerId).pluck('communications.id')));
  ids.push(...(await ofCustomer(trx, incomeAndExpendituresResource, tenantId, customerId).pluck('income_and_expenditures.id')));
  ids.push(...(await ofCustomerDebts(trx, paymentsResource, tenantId, customerId).pluck('payments.id')));
  ids.push(...(await ofCustomerDebts(trx, paymentPlansResource, tenantId, customerId).pluck('payment_plans.id')));
  return ids;
}

/** True when a stored request path or response body names one of `ids` or holds one of `values` (from `erasable`). */
export function concernsCustomer(path: string, body: string, ids: readonly string[], values: readonly string[]): boolean {
  // Compared with the body as scrubStored writes it (JSON re-serialised), not with its stored bytes.
  return ids.some((id) => path.includes(id) || body.includes(id)) || scrubStored(body, values) !== scrubStored(body, []);
}

/**
 * Removes, in `trx`, the tenant's stored responses that concern the customer (see the module's
 * description), page by page, each row locked.
 * @param values the customer's personal values (`erasable`), read before they are erased
 * @returns how many responses were removed
 * @throws SecretDecryptionError when a stored body cannot be opened with `SECRETS_KEY`
 */
export async function eraseStoredResponses(trx: Trx, tenantId: string, customerId: string, values: readonly string[]): Promise<number> {
  const ids = await idsOfCustomer(trx, tenantId, customerId);
  let removed = 0;
  let after = { client_id: '', key: '' };
  for (;;) {
    const rows: { client_id: string; key: string; path: string; response_body: string }[] = await trx('idempotency_keys')
      .where('tenant_id', tenantId)
      .whereNull('erased_at')
      .whereNotNull('response_body')
      .whereRaw('(client_id, key) > (?, ?)', [after.client_id, after.key])
      .orderBy(['client_id', 'key'])
      .limit(PAGE)
      .forUpdate()
      .select('client_id', 'key', 'path', 'response_body');
    const hits = rows.filter((r) => concernsCustomer(r.path, openPersonal(r.response_body) ?? '', ids, values));
    for (const r of hits)
      await trx('idempotency_keys')
        .where({ tenant_id: tenantId, client_id: r.client_id, key: r.key })
        .update({ response_body: null, response_headers: null, erased_at: trx.fn.now() });
    removed += hits.length;
    if (rows.length < PAGE) return removed;
    after = rows.at(-1)!;
  }
}
