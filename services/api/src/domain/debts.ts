/**
 * Debts (CONTRACT section 5): what a customer owes an organisation, with its lifecycle status and
 * a money summary in minor units. `amount_total` and `amount_remaining` are generated columns, so
 * the summary can never disagree with the breakdown and payments.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { newId } from '@dms/ids';
import { recordEvent } from '../db/outbox.js';
import { findOwned, tenantRows } from '../db/scoped.js';
import type { JsonSchema } from '../http/validation.js';
import { currencySchema, idSchema, iso, metadataPatchSchema, metadataSchema, minorUnitsSchema, textSchema, timestampSchema, CURRENCIES, timestampProperties } from './schema-parts.js';
import type { Customer } from './customers.js';
import type { Organisation } from './organisations.js';
import type { DeletedObject } from './deleted.js';
import { mergeMetadata } from './metadata.js';

/** Every status of the lifecycle (CONTRACT section 6). */
export const DEBT_STATUSES = ['initializing', 'prepared', 'paused', 'resumed', 'disputed', 'settled', 'paid', 'withdrawn', 'deleted'] as const;
export type DebtStatus = (typeof DEBT_STATUSES)[number];

/** Kinds of debt a tenant can load. */
export const DEBT_KINDS = ['consumer_loan', 'credit_card', 'overdraft', 'utility_bill', 'telecom_bill', 'rent', 'other'] as const;

/** A row of `debts`; amounts in minor units, `seq` orders the keyset pages. */
export interface DebtRow {
  id: string;
  seq: number;
  tenant_id: string;
  customer_id: string;
  organisation_id: string;
  account_number: string | null;
  kind: string | null;
  currency: string;
  start_at: Date | null;
  tags: string[];
  metadata: Record<string, string>;
  status: DebtStatus;
  status_reason: string | null;
  status_updated_at: Date;
  amount_principal: number;
  amount_interest: number;
  amount_fees: number;
  amount_paid: number;
  amount_total: number;
  amount_remaining: number;
  created_at: Date;
  updated_at: Date;
}

/** The public debt object. `customer`/`organisation` are ids unless expanded (a deleted customer expands to its stub). */
export interface Debt {
  id: string;
  object: 'debt';
  customer: string | Customer | DeletedObject<'customer'>;
  organisation: string | Organisation;
  account_number: string | null;
  kind: string | null;
  currency: string;
  start_at: string | null;
  tags: string[];
  metadata: Record<string, string>;
  status: { value: DebtStatus; reason: string | null; updated_at: string };
  summary: {
    amount_total: number;
    amount_paid: number;
    amount_remaining: number;
    breakdown: { principal: number; interest: number; fees: number };
  };
  created_at: string;
  updated_at: string;
}

const breakdownSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['principal'],
  properties: {
    principal: { ...minorUnitsSchema, minimum: 1, description: 'Principal owed, minor units (> 0).' },
    interest: { ...minorUnitsSchema, description: 'Interest owed, minor units.' },
    fees: { ...minorUnitsSchema, description: 'Fees owed, minor units.' },
  },
};

const editable = {
  account_number: textSchema(64, "The creditor's account reference."),
  kind: { type: 'string', enum: [...DEBT_KINDS] },
  start_at: timestampSchema,
  tags: { type: 'array', maxItems: 20, uniqueItems: true, items: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,39}$' } },
  metadata: metadataSchema,
};

/** JSON Schemas (2020-12) of the create and update bodies and of the response object. */
export const debtSchemas: { create: JsonSchema; update: JsonSchema; object: JsonSchema } = {
  create: {
    type: 'object',
    additionalProperties: false,
    required: ['customer_id', 'organisation_id', 'currency', 'breakdown'],
    properties: {
      customer_id: idSchema('cus', 'Customer who owes the debt (yours).'),
      organisation_id: idSchema('org', 'Organisation the debt is owed to (yours).'),
      currency: currencySchema,
      breakdown: breakdownSchema,
      ...editable,
    },
  },
  update: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: {
      customer_id: idSchema('cus'),
      organisation_id: idSchema('org'),
      currency: currencySchema,
      breakdown: breakdownSchema,
      ...editable,
      metadata: metadataPatchSchema,
    },
  },
  object: {
    type: 'object',
    required: ['id', 'object', 'customer', 'organisation', 'currency', 'status', 'summary', 'tags', 'metadata', 'created_at', 'updated_at'],
    properties: {
      id: { type: 'string', examples: ['deb_1a2B3c4D5e6F7g8H9i0JkLmN'] },
      object: { const: 'debt' },
      customer: { description: 'Customer id, or the customer object with `expand[]=customer`.', oneOf: [{ type: 'string' }, { $ref: '#/components/schemas/Customer' }] },
      organisation: { description: 'Organisation id, or the object with `expand[]=organisation`.', oneOf: [{ type: 'string' }, { $ref: '#/components/schemas/Organisation' }] },
      account_number: { type: ['string', 'null'] },
      kind: { type: ['string', 'null'], enum: [...DEBT_KINDS, null] },
      currency: { type: 'string', enum: [...CURRENCIES] },
      start_at: { type: ['string', 'null'], format: 'date-time' },
      tags: { type: 'array', items: { type: 'string' } },
      metadata: metadataSchema,
      status: {
        type: 'object',
        required: ['value', 'reason', 'updated_at'],
        properties: { value: { type: 'string', enum: [...DEBT_STATUSES] }, reason: { type: ['string', 'null'] }, updated_at: { type: 'string', format: 'date-time' } },
      },
      summary: {
        type: 'object',
        required: ['amount_total', 'amount_paid', 'amount_remaining', 'breakdown'],
        properties: {
          amount_total: { type: 'integer' },
          amount_paid: { type: 'integer' },
          amount_remaining: { type: 'integer' },
          breakdown: { type: 'object', properties: { principal: { type: 'integer' }, interest: { type: 'integer' }, fees: { type: 'integer' } } },
        },
      },
      ...timestampProperties,
    },
  },
};

/** A validated create or update body. */
export interface DebtInput {
  customer_id?: string;
  organisation_id?: string;
  currency?: string;
  breakdown?: { principal: number; interest?: number; fees?: number };
  account_number?: string;
  kind?: string;
  start_at?: string;
  tags?: string[];
  metadata?: Record<string, string>;
}

/** Objects embedded in place of ids (`expand[]`). */
export interface DebtExpansions {
  customer?: Customer | DeletedObject<'customer'>;
  organisation?: Organisation;
}

/** Maps a row to the public object, embedding expanded objects when given. */
export function toDebt(row: DebtRow, expanded: DebtExpansions = {}): Debt {
  return {
    id: row.id,
    object: 'debt',
    customer: expanded.customer ?? row.customer_id,
    organisation: expanded.organisation ?? row.organisation_id,
    account_number: row.account_number,
    kind: row.kind,
    currency: row.currency,
    start_at: iso(row.start_at),
    tags: row.tags,
    metadata: row.metadata,
    status: { value: row.status, reason: row.status_reason, updated_at: iso(row.status_updated_at)! },
    summary: {
      amount_total: row.amount_total,
      amount_paid: row.amount_paid,
      amount_remaining: row.amount_remaining,
      breakdown: { principal: row.amount_principal, interest: row.amount_interest, fees: row.amount_fees },
    },
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

/**
 * Checks that the referenced customer and organisation are the tenant's (and not deleted).
 * @throws ApiError 404 `resource_missing` with `param` naming the field
 */
async function assertDebtReferences(trx: Knex.Transaction, tenantId: string, input: Pick<DebtInput, 'customer_id' | 'organisation_id'>): Promise<void> {
  if (input.customer_id) await findOwned(trx, 'customers', tenantId, input.customer_id, { param: 'customer_id' });
  if (input.organisation_id) await findOwned(trx, 'organisations', tenantId, input.organisation_id, { param: 'organisation_id' });
}

/** Creates a debt in `initializing` and its `debt.created` event in one transaction. */
export async function createDebt(db: Knex, tenantId: string, input: DebtInput): Promise<Debt> {
  return db.transaction(async (trx) => {
    await assertDebtReferences(trx, tenantId, input);
    const [row] = await trx('debts')
      .insert({
        id: newId('deb'),
        tenant_id: tenantId,
        customer_id: input.customer_id,
        organisation_id: input.organisation_id,
        account_number: input.account_number ?? null,
        kind: input.kind ?? null,
        currency: input.currency,
        start_at: input.start_at ?? null,
        tags: input.tags ?? [],
        metadata: JSON.stringify(input.metadata ?? {}),
        amount_principal: input.breakdown!.principal,
        amount_interest: input.breakdown!.interest ?? 0,
        amount_fees: input.breakdown!.fees ?? 0,
      })
      .returning('*');
    const debt = toDebt(row as DebtRow);
    await recordEvent(trx, tenantId, 'debt.created', debt);
    return debt;
  });
}

/** Columns a debt update may write, from the update body (`breakdown` replaces all three amounts). */
function debtChanges(input: DebtInput, current: DebtRow): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const field of ['customer_id', 'organisation_id', 'currency', 'account_number', 'kind', 'start_at', 'tags'] as const) {
    if (input[field] !== undefined) changes[field] = input[field];
  }
  if (input.breakdown !== undefined) {
    changes.amount_principal = input.breakdown.principal;
    changes.amount_interest = input.breakdown.interest ?? 0;
    changes.amount_fees = input.breakdown.fees ?? 0;
  }
  if (input.metadata !== undefined) changes.metadata = JSON.stringify(mergeMetadata(current.metadata, input.metadata));
  return changes;
}

/**
 * Updates a debt (`PATCH`), allowed only while it is `initializing` (CONTRACT section 5): given
 * fields replace, `metadata` merges. A new customer or organisation must be the tenant's. Writes
 * `debt.updated` in the same transaction; the row is locked so a concurrent lifecycle move cannot
 * slip in between the status check and the write.
 * @throws ApiError 404 `resource_missing` (the debt, or `customer_id`/`organisation_id` with `param`),
 *   409 `invalid_state_transition` once the debt has left `initializing`
 */
export async function updateDebt(db: Knex, tenantId: string, id: string, input: DebtInput): Promise<Debt> {
  return db.transaction(async (trx) => {
    const current = await findOwned<DebtRow>(trx, 'debts', tenantId, id, { forUpdate: true });
    if (current.status !== 'initializing') {
      throw new ApiError('invalid_state_transition', `A debt can only be updated while 'initializing'; this one is '${current.status}'.`);
    }
    await assertDebtReferences(trx, tenantId, input);
    const [row] = await tenantRows(trx, 'debts', tenantId)
      .where('debts.id', current.id)
      .update({ ...debtChanges(input, current), updated_at: trx.fn.now() })
      .returning('*');
    const debt = toDebt(row as DebtRow);
    await recordEvent(trx, tenantId, 'debt.updated', debt);
    return debt;
  });
}
