/**
 * Invoice schemas (docs/api.md section 8): the create and update bodies, the public object and the
 * stored row. Dates are `YYYY-MM-DD`; the invoice's line items are created with it and immutable.
 */
import {
  Nullable,
  StringEnum,
  Type,
  dateSchema,
  metadataPatchSchema,
  metadataSchema,
  objectId,
  rowColumns,
  textSchema,
  timestampProperties,
  updateBody,
  type Static,
} from '../kernel/schemas.js';
import { LineItemCreate } from '../line-items/schemas.js';

export const INVOICE_STATUSES = ['open', 'paid', 'void'] as const;

const day = (description: string) => dateSchema(description);
const editable = {
  description: textSchema(500),
  due_on: day('When the invoice is due (YYYY-MM-DD).'),
  status: StringEnum(INVOICE_STATUSES, { description: '`open` (default), `paid` or `void`.' }),
};

/** `POST /debts/{debtId}/invoices` body. */
export const InvoiceCreate = Type.Object(
  {
    reference: textSchema(100, 'Your invoice number; unique within the debt.'),
    invoiced_on: Type.Optional(day('Date of the invoice (YYYY-MM-DD).')),
    due_on: Type.Optional(editable.due_on),
    description: Type.Optional(editable.description),
    status: Type.Optional(editable.status),
    line_items: Type.Optional(Type.Array(LineItemCreate, { maxItems: 100, description: 'New line items of the debt, created with the invoice.' })),
    metadata: Type.Optional(metadataSchema),
  },
  { additionalProperties: false },
);

/** `PUT`/`PATCH /debts/{debtId}/invoices/{id}` body. */
export const InvoiceUpdate = updateBody({ ...editable, metadata: metadataPatchSchema });

/** What an invoice shows between its `debt` and its `line_items`. */
const invoiceProperties = {
  reference: Type.String(),
  invoiced_on: Nullable(Type.String({ format: 'date' })),
  due_on: Nullable(Type.String({ format: 'date' })),
  description: Nullable(Type.String()),
  status: StringEnum(INVOICE_STATUSES),
};

/** The public invoice object: `debt` and `line_items` as ids (the API adds `expand[]` forms). */
export const Invoice = Type.Object({
  id: objectId('inv'),
  object: Type.Literal('invoice'),
  debt: Type.String(),
  ...invoiceProperties,
  line_items: Type.Array(Type.String(), { description: 'Ids of the line items created with the invoice.' }),
  metadata: metadataSchema,
  ...timestampProperties,
});

/** A row of `invoices`. */
export const InvoiceRow = Type.Object({
  ...rowColumns,
  seq: Type.Number(),
  debt_id: Type.String(),
  reference: Type.String(),
  invoiced_on: Nullable(Type.String()),
  due_on: Nullable(Type.String()),
  description: Nullable(Type.String()),
  status: StringEnum(INVOICE_STATUSES),
  metadata: metadataSchema,
});

export type InvoiceCreate = Static<typeof InvoiceCreate>;
export type InvoiceUpdate = Static<typeof InvoiceUpdate>;
export type Invoice = Static<typeof Invoice>;
export type InvoiceRow = Static<typeof InvoiceRow>;
