/**
 * Invoices (docs/api.md section 8): what was billed for a debt. An invoice is created with its new
 * line items in one transaction under the debt's lock (the summary moves with them); `reference`
 * is unique within the debt (a database constraint, so a race cannot duplicate it: 409).
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { newId } from '@dms/ids';
import { givenFields, updateOwned, type OwnedResource } from '../kernel/owned.js';
import { recordEvent } from '../kernel/outbox.js';
import { tenantRows } from '../kernel/scoped.js';
import { iso } from '../kernel/schemas.js';
import { lockDebt } from '../debts/moves.js';
import { addLineItems } from '../debts/ledger.js';
import { lineItemsResource } from '../line-items/resource.js';
import { invoicesResource } from './resource.js';
import type { Invoice, InvoiceCreate, InvoiceRow, InvoiceUpdate } from './schemas.js';

/**
 * Maps a row to the public object.
 * @param lineItemIds ids of the invoice's line items, oldest first
 */
export function toInvoice(row: InvoiceRow, lineItemIds: string[]): Invoice {
  return {
    id: row.id,
    object: 'invoice',
    debt: row.debt_id,
    reference: row.reference,
    invoiced_on: row.invoiced_on,
    due_on: row.due_on,
    description: row.description,
    status: row.status,
    line_items: lineItemIds,
    metadata: row.metadata,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

/**
 * Serializes invoice rows with the ids of their line items (one query for the whole page).
 * @returns public invoices in the order of `rows`
 */
export async function toInvoices(db: Knex | Knex.Transaction, tenantId: string, rows: InvoiceRow[]): Promise<Invoice[]> {
  const items: Array<{ id: string; invoice_id: string }> = rows.length
    ? await tenantRows(db, lineItemsResource, tenantId)
        .whereIn(
          'line_items.invoice_id',
          rows.map((r) => r.id),
        )
        .orderBy('line_items.seq')
        .select('line_items.id', 'line_items.invoice_id')
    : [];
  return rows.map((row) =>
    toInvoice(
      row,
      items.filter((i) => i.invoice_id === row.id).map((i) => i.id),
    ),
  );
}

/** An invoice row read with `withLineItemIds`. */
export type InvoiceRowWithItems = InvoiceRow & { line_item_ids: string[] };

/**
 * Makes a query of invoices select their columns plus `line_item_ids` (oldest first), in the same
 * query, so a page of invoices embedded in debts costs one query.
 */
export function withLineItemIds(db: Knex | Knex.Transaction, q: Knex.QueryBuilder): void {
  q.select('invoices.*', db.raw('ARRAY(SELECT li.id FROM line_items AS li WHERE li.invoice_id = invoices.id ORDER BY li.seq) AS line_item_ids'));
}

/** True for PostgreSQL's unique violation of the invoice reference. */
function duplicateReference(err: unknown): boolean {
  return (err as { code?: string; constraint?: string }).code === '23505' && (err as { constraint?: string }).constraint === 'invoices_reference_unique';
}

const conflict = (reference: string) => new ApiError('resource_conflict', `The debt already has an invoice '${reference}'.`, { param: 'reference' });

/**
 * Creates an invoice of the tenant's debt with its line items; `invoice.created` after the items.
 * @throws ApiError 404, 409 `resource_conflict` (param `reference`) or `invalid_state_transition`
 *   (terminal debt), 422 `business_rule_violation` for an item (param `line_items[i].amount`)
 */
export async function createInvoice(db: Knex, tenantId: string, debtId: string, input: InvoiceCreate, whodunnit: string): Promise<Invoice> {
  try {
    return await db.transaction(async (trx) => {
      const debt = await lockDebt(trx, tenantId, debtId);
      if (await tenantRows(trx, invoicesResource, tenantId).where({ 'invoices.debt_id': debt.id, 'invoices.reference': input.reference }).first('invoices.id'))
        throw conflict(input.reference);
      const [row] = await trx(invoicesResource.table)
        .insert({
          id: newId(invoicesResource.idPrefix),
          tenant_id: tenantId,
          debt_id: debt.id,
          reference: input.reference,
          invoiced_on: input.invoiced_on ?? null,
          due_on: input.due_on ?? null,
          description: input.description ?? null,
          status: input.status ?? 'open',
          metadata: JSON.stringify(input.metadata ?? {}),
        })
        .returning('*');
      if (input.line_items?.length)
        await addLineItems(trx, tenantId, debt, input.line_items, { invoiceId: row.id, param: (i) => `line_items[${i}]`, whodunnit });
      const [invoice] = await toInvoices(trx, tenantId, [row as InvoiceRow]);
      await recordEvent(trx, invoicesResource, tenantId, 'invoice.created', invoice);
      return invoice!;
    });
  } catch (err) {
    if (duplicateReference(err)) throw conflict(input.reference);
    throw err;
  }
}

/**
 * Updates an invoice of debt `debtId` (`PUT`/`PATCH`): description, due_on, status replace, metadata merges.
 * @throws ApiError 404 `resource_missing` (also when the invoice is another debt's)
 */
export async function updateInvoice(db: Knex, tenantId: string, debtId: string, id: string, input: InvoiceUpdate): Promise<Invoice> {
  let out: Invoice | undefined;
  const owned: OwnedResource<InvoiceRow, InvoiceRow, typeof invoicesResource> = { resource: invoicesResource, toObject: (row) => row };
  await db.transaction(async (trx) => {
    const row = await updateOwned(
      trx,
      tenantId,
      owned,
      id,
      (current) => {
        if (current.debt_id !== debtId) throw new ApiError('resource_missing', `No such invoice: '${id}'`);
        return givenFields(input, ['description', 'due_on', 'status']);
      },
      input.metadata,
    );
    [out] = await toInvoices(trx, tenantId, [row]);
    await recordEvent(trx, invoicesResource, tenantId, 'invoice.updated', out);
  });
  return out!;
}
