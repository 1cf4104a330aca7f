/**
 * Line item kinds (docs/api.md section 8): the sign each kind must carry and the summary bucket
 * (debt column) it adds to. Pure: the store applies it under the debt's row lock.
 *
 * | kind                                 | sign | summary breakdown |
 * |--------------------------------------|------|-------------------|
 * | debt                                 | +    | principal         |
 * | interest                             | +    | interest          |
 * | fee                                  | +    | fees              |
 * | vat                                  | +    | value_added_tax   |
 * | refund                               | +    | refunds           |
 * | credit, discount                     | −    | discounts         |
 * | creditor_refund                      | −    | refunds           |
 */

/** Every kind of line item. */
export const LINE_ITEM_KINDS = ['debt', 'interest', 'fee', 'vat', 'refund', 'credit', 'discount', 'creditor_refund'] as const;
export type LineItemKind = (typeof LINE_ITEM_KINDS)[number];

/** The debt columns that hold the summary breakdown, minor units. */
export const SUMMARY_COLUMNS = ['amount_principal', 'amount_interest', 'amount_fees', 'amount_vat', 'amount_discounts', 'amount_refunds'] as const;
export type SummaryColumn = (typeof SUMMARY_COLUMNS)[number];

const RULES: Record<LineItemKind, { sign: 1 | -1; column: SummaryColumn }> = {
  debt: { sign: 1, column: 'amount_principal' },
  interest: { sign: 1, column: 'amount_interest' },
  fee: { sign: 1, column: 'amount_fees' },
  vat: { sign: 1, column: 'amount_vat' },
  refund: { sign: 1, column: 'amount_refunds' },
  credit: { sign: -1, column: 'amount_discounts' },
  discount: { sign: -1, column: 'amount_discounts' },
  creditor_refund: { sign: -1, column: 'amount_refunds' },
};

/**
 * Checks the sign of `amount` (minor units) for `kind`.
 * @returns null when right, else a message fit for a 422 naming `amount`
 */
export function signError(kind: LineItemKind, amount: number): string | null {
  const { sign } = RULES[kind];
  if (amount === 0) return 'amount must not be 0.';
  if (Math.sign(amount) !== sign) return `amount must be ${sign > 0 ? 'positive' : 'negative'} for a '${kind}' line item.`;
  return null;
}

/**
 * Sums items into summary columns.
 * @returns every column of SUMMARY_COLUMNS with the sum of its items' amounts (0 when none)
 */
export function summaryDeltas(items: ReadonlyArray<{ kind: LineItemKind; amount: number }>): Record<SummaryColumn, number> {
  const out = Object.fromEntries(SUMMARY_COLUMNS.map((c) => [c, 0])) as Record<SummaryColumn, number>;
  for (const item of items) out[RULES[item.kind].column] += item.amount;
  return out;
}

/** `breakdown` shorthand (principal, interest, fees) → the line items it stands for (zero parts left out). */
export function breakdownItems(breakdown: { principal?: number; interest?: number; fees?: number }): Array<{ kind: LineItemKind; amount: number }> {
  const parts: Array<[LineItemKind, number | undefined]> = [
    ['debt', breakdown.principal],
    ['interest', breakdown.interest],
    ['fee', breakdown.fees],
  ];
  return parts.filter(([, amount]) => (amount ?? 0) > 0).map(([kind, amount]) => ({ kind, amount: amount! }));
}
