/**
 * Everything held about a person as one JSON document (docs/api.md section 20, "Export"; GDPR
 * Article 15): written progressively, section by section, each section read page by page in
 * `seq` order, so a long history streams with flat memory. The caller writes the chunks in order.
 */
import type { Knex } from '@dms/db';
import { loadCustomer } from '../customers/store.js';
import { contactDetailsResource } from '../contact-details/resource.js';
import { toContactDetail } from '../contact-details/store.js';
import { debtsResource } from '../debts/resource.js';
import { toDebt } from '../debts/store.js';
import { paymentsResource } from '../payments/resource.js';
import { toPayment } from '../payments/store.js';
import { paymentPlansResource } from '../payment-plans/resource.js';
import { toPaymentPlan } from '../payment-plans/store.js';
import { communicationsResource } from '../communications/resource.js';
import { toCommunication } from '../communications/store.js';
import { toEvent } from '../events/schemas.js';
import { incomeAndExpendituresResource } from '../income-and-expenditure/resource.js';
import { toIncomeAndExpenditure } from '../income-and-expenditure/store.js';
import { stampLivemode, tenantLivemode } from '../kernel/livemode.js';
import { accessLogOf, toCustomerAccess } from './access-log.js';
import { eventsAbout, ofCustomer, ofCustomerDebts, pagesOf } from './related.js';

type Db = Knex | Knex.Transaction;
// Each section maps its table's rows with the resource's own mapper; the rows are those mappers' input.
type Mapper = (row: never) => unknown;

/** The list sections of the document, in order: name, table, rows, mapper. */
function sections(db: Db, tenantId: string, customerId: string): [string, string, () => Knex.QueryBuilder, Mapper][] {
  return [
    ['contact_details', contactDetailsResource.table, () => ofCustomer(db, contactDetailsResource, tenantId, customerId), toContactDetail],
    ['debts', debtsResource.table, () => ofCustomer(db, debtsResource, tenantId, customerId), toDebt],
    ['payments', paymentsResource.table, () => ofCustomerDebts(db, paymentsResource, tenantId, customerId), toPayment],
    ['payment_plans', paymentPlansResource.table, () => ofCustomerDebts(db, paymentPlansResource, tenantId, customerId), (r) => toPaymentPlan(r)],
    [
      'income_and_expenditures',
      incomeAndExpendituresResource.table,
      () => ofCustomer(db, incomeAndExpendituresResource, tenantId, customerId),
      toIncomeAndExpenditure,
    ],
    ['communications', communicationsResource.table, () => ofCustomer(db, communicationsResource, tenantId, customerId), toCommunication],
    ['events', 'events', () => eventsAbout(db, tenantId, customerId), toEvent],
    ['access_log', 'customer_access_log', () => accessLogOf(db, tenantId, customerId), toCustomerAccess],
  ];
}

/**
 * The export of the tenant's customer `customerId`, as JSON text chunks:
 * `{"object":"customer_export","exported_at","customer",` then each list section (`contact_details`
 * with deleted ones, `debts`, `payments`, `payment_plans`, `income_and_expenditures`,
 * `communications` with their rendered `subject` and `body`, `events`, `access_log`), oldest first,
 * then `}`; every object carries the tenant's `livemode`, as the API's answers do.
 * The customer is read before the first chunk, so a missing one fails before anything is written.
 * @throws ApiError 404 `resource_missing` (unknown, deleted, or another tenant's customer)
 */
export async function exportCustomer(db: Db, tenantId: string, customerId: string, now = new Date()): Promise<AsyncGenerator<string>> {
  const customer = await loadCustomer(db, tenantId, customerId);
  const mode = await tenantLivemode(db, tenantId);
  return (async function* () {
    yield `{"object":"customer_export","livemode":${mode},"exported_at":${JSON.stringify(now.toISOString())},"customer":${JSON.stringify(stampLivemode(customer, mode))}`;
    for (const [name, table, query, map] of sections(db, tenantId, customerId)) {
      yield `,${JSON.stringify(name)}:[`;
      let first = true;
      for await (const item of pagesOf(query, table, map as (row: { seq: number }) => unknown)) {
        yield (first ? '' : ',') + JSON.stringify(stampLivemode(item, mode));
        first = false;
      }
      yield ']';
    }
    yield '}';
  })();
}
