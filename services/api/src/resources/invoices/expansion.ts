/**
 * What an invoice expands (docs/api.md section 10): `line_items`, the line item objects in place
 * of their ids (oldest first), and `debt` in place of its id (its own references as ids). One
 * batch query per page (operations/expansion.ts).
 */
import { declareExpansions, referencingRows, type ExpansionRegistry } from '../../operations/expansion.js';
import { lineItemsResource, toLineItem, type LineItemRow } from '@dms/domain/line-items';
import { embeddedDebt } from '../debts/expansion.js';
import type { InvoiceView as Invoice } from './schemas.js';

/** The relations of an invoice. */
export const INVOICE_EXPANSIONS = declareExpansions('invoice', {
  line_items: referencingRows<Invoice, LineItemRow>(lineItemsResource, 'invoice_id', toLineItem, { order: 'asc' }),
  debt: embeddedDebt<Invoice>(),
} satisfies ExpansionRegistry<Invoice>);
