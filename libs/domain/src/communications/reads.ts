/**
 * What the collection engine reads about a debt it has locked (docs/api.md sections 12 and 13):
 * its organisation and strategy, its customer, the customer's usable contact details, the
 * customer's contacts of the last 7 days and the step templates. `directReads` asks the database
 * for each debt; `batchReads` loads them for a whole batch of locked debts in a few statements
 * (the worker's batches) and answers from memory, counting the communications the batch hands
 * over so that the 7-day limit sees them as a query in the same transaction would.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { customersResource } from '../customers/resource.js';
import type { CustomerRow } from '../customers/schemas.js';
import { contactDetailsResource } from '../contact-details/resource.js';
import type { ContactDetailRow } from '../contact-details/schemas.js';
import type { DebtRow } from '../debts/schemas.js';
import type { AnyResource } from '../kernel/resource.js';
import { findOwned, tenantRows } from '../kernel/scoped.js';
import { organisationsResource } from '../organisations/resource.js';
import type { OrganisationRow } from '../organisations/schemas.js';
import { strategyOf, type CollectionStrategy } from '../organisations/strategy.js';
import { USABLE_DETAIL_STATUSES, usableDetails } from './details.js';
import { stepTemplate, type StepTemplate } from './render.js';
import { communicationsResource } from './resource.js';
import { contactsInSevenDays } from './contact-lock.js';

/** The engine's reads about a locked debt. */
export interface EngineReads {
  /** The debt's organisation and its collection strategy. */
  strategyFor(debt: DebtRow): Promise<{ organisation: OrganisationRow; strategy: CollectionStrategy }>;
  /** @throws ApiError 404 `resource_missing` when the debt's customer is gone */
  customer(debt: DebtRow): Promise<CustomerRow>;
  /** The customer's usable details, primary first, then oldest first. */
  usableDetails(debt: DebtRow): Promise<ContactDetailRow[]>;
  /** Outbound hand-overs to the customer in the 7 days up to `now`, and the oldest of them. */
  contactsInSevenDays(debt: DebtRow, now: Date): Promise<{ count: number; oldest: Date | null }>;
  /** The step template `ref` of the tenant (else the built-in one), or null. */
  template(tenantId: string, ref: string): Promise<StepTemplate | null>;
  /** Notes a communication handed over to the debt's customer at `at` (a batch counts it from then on). */
  noteContact(debt: DebtRow, at: Date): void;
}

/** Reads straight from the database, one statement per question. */
export function directReads(trx: Knex | Knex.Transaction): EngineReads {
  return {
    async strategyFor(debt) {
      const organisation = await findOwned<OrganisationRow>(trx, organisationsResource, debt.tenant_id, debt.organisation_id);
      return { organisation, strategy: strategyOf(organisation.configurations) };
    },
    customer: (debt) => findOwned<CustomerRow>(trx, customersResource, debt.tenant_id, debt.customer_id),
    usableDetails: (debt) => usableDetails(trx, debt.tenant_id, debt.customer_id),
    contactsInSevenDays: (debt, now) => contactsInSevenDays(trx as Knex.Transaction, debt.tenant_id, debt.customer_id, now),
    template: (tenantId, ref) => stepTemplate(trx, tenantId, ref),
    noteContact: () => undefined,
  };
}

const DAY_MS = 86_400_000;
const key = (tenantId: string, id: string) => `${tenantId}/${id}`;

/** Groups rows by `tenant/id` of the column `by`. */
function groupBy<R extends { tenant_id: string }>(rows: readonly R[], by: (r: R) => string): Map<string, R[]> {
  const out = new Map<string, R[]>();
  for (const r of rows) {
    const k = key(r.tenant_id, by(r));
    const list = out.get(k);
    if (list) list.push(r);
    else out.set(k, [r]);
  }
  return out;
}

/** Visible rows of `resource` whose ids `idOf` gives for `debts`, one statement per tenant, by `tenant/id`. */
async function byIds<R extends { id: string; tenant_id: string }>(
  trx: Knex.Transaction,
  resource: AnyResource,
  debts: readonly DebtRow[],
  idOf: (d: DebtRow) => string,
): Promise<Map<string, R>> {
  const out = new Map<string, R>();
  for (const [tenantId, ids] of idsByTenant(debts, idOf)) {
    const rows = (await tenantRows(trx, resource, tenantId).whereIn(`${resource.table}.id`, ids)) as R[];
    for (const r of rows) out.set(key(r.tenant_id, r.id), r);
  }
  return out;
}

/** The distinct ids `idOf` gives for `debts`, per tenant. */
function idsByTenant(debts: readonly DebtRow[], idOf: (d: DebtRow) => string): Map<string, string[]> {
  const out = new Map<string, Set<string>>();
  for (const d of debts) {
    const ids = out.get(d.tenant_id) ?? new Set<string>();
    out.set(d.tenant_id, ids.add(idOf(d)));
  }
  return new Map([...out].map(([t, ids]) => [t, [...ids]]));
}

/**
 * Loads the engine's reads for `debts` (locked in `trx`) in a few statements per tenant.
 * @param earliest the earliest engine clock of the batch: hand-overs after it minus 7 days are loaded
 */
export async function batchReads(trx: Knex.Transaction, debts: readonly DebtRow[], earliest: Date): Promise<EngineReads> {
  const organisations = await byIds<OrganisationRow>(trx, organisationsResource, debts, (d) => d.organisation_id);
  const customers = await byIds<CustomerRow>(trx, customersResource, debts, (d) => d.customer_id);
  const details = new Map<string, ContactDetailRow[]>();
  const contacts = new Map<string, Date[]>();
  for (const [tenantId, customerIds] of idsByTenant(debts, (d) => d.customer_id)) {
    const found = (await tenantRows(trx, contactDetailsResource, tenantId)
      .whereIn('customer_contact_details.customer_id', customerIds)
      .whereIn('customer_contact_details.status', USABLE_DETAIL_STATUSES)
      .orderBy([
        { column: 'customer_contact_details.primary', order: 'desc' },
        { column: 'customer_contact_details.seq', order: 'asc' },
      ])) as ContactDetailRow[];
    for (const [k, rows] of groupBy(found, (r) => r.customer_id)) details.set(k, rows);
    const handed = await tenantRows(trx, communicationsResource, tenantId)
      .whereIn('communications.customer_id', customerIds)
      .where('communications.direction', 'outbound')
      .where('communications.handed_at', '>', new Date(earliest.getTime() - 7 * DAY_MS))
      .select<Array<{ tenant_id: string; customer_id: string; handed_at: Date }>>(
        'communications.tenant_id',
        'communications.customer_id',
        'communications.handed_at',
      );
    for (const [k, rows] of groupBy(handed, (r) => r.customer_id))
      contacts.set(
        k,
        rows.map((r) => r.handed_at),
      );
  }
  const templates = new Map<string, Promise<StepTemplate | null>>();
  const strategies = new Map<string, CollectionStrategy>();
  return {
    async strategyFor(debt) {
      const organisation = organisations.get(key(debt.tenant_id, debt.organisation_id));
      if (!organisation) return directReads(trx).strategyFor(debt);
      let strategy = strategies.get(organisation.id);
      if (!strategy) strategies.set(organisation.id, (strategy = strategyOf(organisation.configurations)));
      return { organisation, strategy };
    },
    async customer(debt) {
      const customer = customers.get(key(debt.tenant_id, debt.customer_id));
      if (!customer) throw new ApiError('resource_missing', `No such customer: '${debt.customer_id}'`);
      return customer;
    },
    async usableDetails(debt) {
      return details.get(key(debt.tenant_id, debt.customer_id)) ?? [];
    },
    async contactsInSevenDays(debt, now) {
      const since = now.getTime() - 7 * DAY_MS;
      const times = (contacts.get(key(debt.tenant_id, debt.customer_id)) ?? []).filter((t) => t.getTime() > since);
      return { count: times.length, oldest: times.length ? new Date(Math.min(...times.map((t) => t.getTime()))) : null };
    },
    template(tenantId, ref) {
      const k = key(tenantId, ref);
      let t = templates.get(k);
      if (!t) templates.set(k, (t = stepTemplate(trx, tenantId, ref)));
      return t;
    },
    noteContact(debt, at) {
      const k = key(debt.tenant_id, debt.customer_id);
      contacts.set(k, [...(contacts.get(k) ?? []), at]);
    },
  };
}
