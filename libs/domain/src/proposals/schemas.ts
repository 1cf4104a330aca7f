/**
 * Proposal schemas (docs/api.md section 18): the public object, the decline body and the stored
 * row. Amounts are integer minor units in the debt's currency.
 */
import { CURRENCIES, StringEnum, Type, objectId, type Static } from '../kernel/schemas.js';
import { FREQUENCIES } from '../payment-plans/schedule.js';

/** A proposal's statuses: pending until the tenant or an operator decides. */
export const PROPOSAL_STATUSES = ['pending', 'accepted', 'declined'] as const;
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];

/** The public proposal object. */
export const Proposal = Type.Object({
  id: objectId('prp'),
  object: Type.Literal('proposal'),
  debt: Type.String({ description: 'Id of the debt the plan was proposed for.' }),
  customer: Type.String({ description: 'Id of the customer who proposed it.' }),
  income_and_expenditure: Type.String({ description: 'Id of the income and expenditure statement the proposal was made with.' }),
  currency: StringEnum(CURRENCIES, { description: "The debt's currency." }),
  instalment_amount: Type.Integer({ description: 'Amount per instalment, minor units.' }),
  frequency: StringEnum(FREQUENCIES, { description: 'How often an instalment is due.' }),
  instalment_count: Type.Integer({ description: "Instalments needed to pay the debt's remaining balance when proposed (the last takes the remainder)." }),
  start_on: Type.String({ format: 'date', description: 'Date of the first payment.' }),
  status: StringEnum(PROPOSAL_STATUSES, { description: '`pending` until accepted or declined.' }),
  decided_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When it was accepted or declined.' }),
  decline_reason: Type.Union([Type.String(), Type.Null()], { description: 'Why it was declined.' }),
  payment_plan: Type.Union([Type.String(), Type.Null()], { description: 'Id of the payment plan the acceptance created.' }),
  created_at: Type.String({ format: 'date-time' }),
});

/** `POST /proposals/{id}/decline` body. */
export const ProposalDecline = Type.Object(
  { reason: Type.String({ minLength: 1, maxLength: 500, description: 'Why the proposal is declined (1-500 characters).' }) },
  { additionalProperties: false },
);

/** What the customer proposes (the portal's answers); checked by `createProposal`. */
export interface ProposalInput {
  instalment_amount: number;
  frequency: string;
  start_on: string;
  income_and_expenditure: string;
}

/** A row of `proposals` (migration 098). */
export interface ProposalRow {
  id: string;
  tenant_id: string;
  seq: number;
  debt_id: string;
  customer_id: string;
  income_and_expenditure_id: string;
  currency: (typeof CURRENCIES)[number];
  instalment_amount: number | string;
  frequency: (typeof FREQUENCIES)[number];
  instalment_count: number;
  start_on: Date | string;
  status: ProposalStatus;
  decided_at: Date | string | null;
  decided_by: string | null;
  decline_reason: string | null;
  payment_plan_id: string | null;
  whodunnit: string;
  created_at: Date | string;
}

export type Proposal = Static<typeof Proposal>;
export type ProposalDecline = Static<typeof ProposalDecline>;
