/**
 * The public JSON of debts and payments (docs/api.md sections 5 and 8) as a bare server writes it:
 * the row mapped to a plain object with the documented keys in the documented order, timestamps
 * left as the driver's `Date` (JSON.stringify writes `toISOString()`: RFC 3339 UTC with
 * milliseconds), serialized by `JSON.stringify`. Written independently of the API's mapping
 * (libs/domain/src/debts/store.ts, libs/domain/src/payments/store.ts) on purpose: a ceiling that ran the code
 * under test would not be a ceiling. The benchmark compares the bytes with the API's before loading.
 */

/** A row as node-postgres returns it (int8 parsed to numbers, timestamptz to Date). */
type Row = Record<string, unknown>;

/** `GET /debts` item (docs/api.md section 5): ids for `customer` and `organisation` (no `expand[]`); `livemode` is its tenant's (section 15). */
export function debtObject(r: Row, livemode: boolean): object {
  return {
    id: r.id,
    object: 'debt',
    customer: r.customer_id,
    organisation: r.organisation_id,
    account_number: r.account_number,
    kind: r.kind,
    originator: r.originator,
    configurations: r.configurations,
    currency: r.currency,
    start_at: r.start_at,
    tags: r.tags,
    metadata: r.metadata,
    status: {
      value: r.status,
      reason: r.status_reason,
      whodunnit: r.status_whodunnit,
      context: r.status_context,
      end_at: r.pause_end_at,
      updated_at: r.status_updated_at,
    },
    summary: {
      amount_total: r.amount_total,
      amount_paid: r.amount_paid,
      amount_remaining: r.amount_remaining,
      breakdown: {
        principal: r.amount_principal,
        interest: r.amount_interest,
        fees: r.amount_fees,
        value_added_tax: r.amount_vat,
        discounts: r.amount_discounts,
        refunds: r.amount_refunds,
      },
    },
    created_at: r.created_at,
    updated_at: r.updated_at,
    livemode,
  };
}

/** `GET /payments` item (docs/api.md section 5): ids for `debt` and `payment_plan` (no `expand[]`); `livemode` is its tenant's (section 15). */
export function paymentObject(r: Row, livemode: boolean): object {
  return {
    id: r.id,
    object: 'payment',
    debt: r.debt_id,
    amount: r.amount,
    currency: r.currency,
    status: r.status,
    payment_provider: r.payment_provider,
    payment_plan: r.payment_plan_id,
    amount_refunded: r.amount_refunded,
    transaction_at: r.transaction_at,
    transaction_ref: r.transaction_ref,
    metadata: r.metadata,
    created_at: r.created_at,
    updated_at: r.updated_at,
    livemode,
  };
}

/** The list body `{"object":"list","data":[…]}` plus the API's trailing newline. */
export function listBody(items: object[]): string {
  return `${JSON.stringify({ object: 'list', data: items })}\n`;
}
