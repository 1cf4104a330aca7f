/**
 * The invoice as the API shows it (docs/api.md sections 8 and 10): the domain's object with its
 * `debt` and `line_items` as ids or, with `expand[]`, the objects themselves.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Invoice as InvoiceObject } from '@dms/domain/invoices';
import { LineItem } from '@dms/domain/line-items';
import { DebtRef } from '../debts/schemas.js';

/** An item of an invoice's `line_items`: the id, or the line item with `expand[]=line_items`. */
const LineItemRef = Type.Unsafe<string | LineItem>({
  description: 'Line item id, or the line item with `expand[]=line_items`.',
  oneOf: [{ type: 'string' }, LineItem],
});

/** The public invoice object. */
export const Invoice = Type.Object({
  ...InvoiceObject.properties,
  debt: DebtRef,
  line_items: Type.Array(LineItemRef, {
    description: 'The line items created with the invoice (ids, or the objects with `expand[]=line_items`), oldest first.',
  }),
});

/** The invoice as responses show it (relations ids or, expanded, objects). */
export type InvoiceView = Static<typeof Invoice>;
