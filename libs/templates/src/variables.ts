/**
 * The variables a communication template may use (docs/api.md section 13): the debt, the
 * customer, the organisation, the amounts (minor units and formatted), the per-debt reply address,
 * the payment link and today's date. This set is the whole vocabulary: a template naming anything
 * else is refused when it is saved and when it is rendered.
 *
 * `TemplateVariables` is the typed interface; `SAMPLE_VARIABLES` is a complete instance of it (the
 * compiler checks it has every field and no other), used to dry-render templates when they are
 * saved and to derive the list of valid paths, so the interface and the checks cannot drift.
 */
import { formatMoney, type Currency } from './money.js';

/** Amount fields, each an integer in minor units of `amounts.currency`. */
export const AMOUNT_FIELDS = ['total', 'paid', 'remaining', 'principal', 'interest', 'fees'] as const;
export type AmountField = (typeof AMOUNT_FIELDS)[number];

/** Everything a template can read. Values that a debt or customer may lack are `null` (they render as nothing). */
export interface TemplateVariables {
  debt: {
    id: string;
    account_number: string | null;
    kind: string | null;
    currency: Currency;
    /** ISO 8601 date (YYYY-MM-DD) the debt started, or null. */
    start_at: string | null;
    status: string;
  };
  customer: {
    id: string;
    kind: 'individual' | 'company' | 'unknown';
    full_name: string | null;
    first_name: string | null;
    last_name: string | null;
    preferred_locale: string | null;
  };
  organisation: {
    id: string;
    name: string;
    /** The name customers know the creditor by: `customer_facing_name`, else `name`. */
    customer_facing_name: string;
  };
  /** The debt's summary: integers in minor units, and the same amounts formatted (e.g. `£125.00`). */
  amounts: { currency: Currency } & Record<AmountField, number> & { formatted: Record<AmountField, string> };
  /** The per-debt reply address of emails (replies to it become inbound communications). */
  reply_address: string;
  /** Where the customer can pay: a link the engine supplies (a placeholder until payments pages exist). */
  payment_link: string;
  /** ISO 8601 date (YYYY-MM-DD) of the send, in the customer's time zone. */
  today: string;
}

/** What `buildTemplateVariables` needs: the debt's own fields and summary as the API returns them (docs/api.md section 5). */
export interface TemplateVariablesInput {
  debt: TemplateVariables['debt'];
  customer: TemplateVariables['customer'];
  organisation: { id: string; name: string; customer_facing_name?: string | null };
  summary: { amount_total: number; amount_paid: number; amount_remaining: number; breakdown: { principal: number; interest: number; fees: number } };
  reply_address: string;
  payment_link: string;
  today: string;
}

/**
 * Builds the variables of one communication: copies the debt, customer and organisation fields
 * and formats every amount in the debt's currency.
 * @throws RangeError when an amount is not an integer or the currency is unsupported
 */
export function buildTemplateVariables(input: TemplateVariablesInput): TemplateVariables {
  const { summary } = input;
  const currency = input.debt.currency;
  const minor: Record<AmountField, number> = {
    total: summary.amount_total,
    paid: summary.amount_paid,
    remaining: summary.amount_remaining,
    principal: summary.breakdown.principal,
    interest: summary.breakdown.interest,
    fees: summary.breakdown.fees,
  };
  const formatted = Object.fromEntries(AMOUNT_FIELDS.map((f) => [f, formatMoney(minor[f], currency)])) as Record<AmountField, string>;
  return {
    debt: { ...input.debt },
    customer: { ...input.customer },
    organisation: {
      id: input.organisation.id,
      name: input.organisation.name,
      customer_facing_name: input.organisation.customer_facing_name || input.organisation.name,
    },
    amounts: { currency, ...minor, formatted },
    reply_address: input.reply_address,
    payment_link: input.payment_link,
    today: input.today,
  };
}

/** A complete, realistic instance of `TemplateVariables`: templates are dry-rendered against it when saved. */
export const SAMPLE_VARIABLES: TemplateVariables = buildTemplateVariables({
  debt: { id: 'deb_0000000000000000000000ab', account_number: 'ACC-1001', kind: 'utility', currency: 'GBP', start_at: '2024-01-15', status: 'contacted' },
  customer: {
    id: 'cus_0000000000000000000000ab',
    kind: 'individual',
    full_name: 'Ann Example',
    first_name: 'Ann',
    last_name: 'Example',
    preferred_locale: 'en-GB',
  },
  organisation: { id: 'org_0000000000000000000000ab', name: 'Example Energy Ltd', customer_facing_name: 'Example Energy' },
  summary: { amount_total: 12500, amount_paid: 2500, amount_remaining: 10000, breakdown: { principal: 11000, interest: 1000, fees: 500 } },
  reply_address: 'reply+example@reply.example.com',
  payment_link: 'https://pay.example.com/deb_0000000000000000000000ab',
  today: '2025-03-01',
});

/** Every valid variable path, e.g. `customer.first_name`, `amounts.formatted.remaining` (objects and leaves). */
export const VARIABLE_PATHS: ReadonlySet<string> = new Set(paths(SAMPLE_VARIABLES as unknown as Record<string, unknown>, ''));

/** Paths that hold objects (a template may index into them but not print them). */
export const OBJECT_PATHS: ReadonlySet<string> = new Set(
  [...VARIABLE_PATHS].filter((p) => {
    const v = p.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], SAMPLE_VARIABLES);
    return typeof v === 'object' && v !== null;
  }),
);

function paths(obj: Record<string, unknown>, prefix: string): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(obj)) {
    const p = prefix ? `${prefix}.${k}` : k;
    out.push(p);
    if (typeof v === 'object' && v !== null) out.push(...paths(v as Record<string, unknown>, p));
  }
  return out;
}
