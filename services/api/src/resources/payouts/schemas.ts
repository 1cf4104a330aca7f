/**
 * The payout and balance item as the API shows them (docs/api.md section 14): the domain's objects
 * with `organisation` (the id, or with `expand[]=organisation` the organisation) beside
 * `organisation_id`, and an item's `payment` as its id or, with `expand[]=payment`, the payment.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { OrganisationWithContactDetails as Organisation } from '@dms/domain/organisation-contact-details';
import { BalanceItem as BalanceItemObject, Payout as PayoutObject } from '@dms/domain/payouts';
import { Payment } from '../payments/schemas.js';

const OrganisationRef = Type.Unsafe<string | Organisation>({
  description: 'Organisation id, or the object with `expand[]=organisation`.',
  oneOf: [{ type: 'string' }, { $ref: '#/components/schemas/Organisation' }],
});

const PaymentRef = Type.Unsafe<string | null | Static<typeof Payment>>({
  description: 'Id of the payment (payment and refund items; null for adjustments), or the payment with `expand[]=payment`.',
  oneOf: [{ type: 'null' }, { type: 'string' }, Payment],
});

/** The public payout object. */
export const Payout = Type.Object({ ...PayoutObject.properties, organisation: OrganisationRef });
/** The public balance item. */
export const BalanceItem = Type.Object({ ...BalanceItemObject.properties, payment: PaymentRef });

/** The payout as responses show it. */
export type PayoutView = Static<typeof Payout>;
/** The balance item as responses show it. */
export type BalanceItemView = Static<typeof BalanceItem>;
