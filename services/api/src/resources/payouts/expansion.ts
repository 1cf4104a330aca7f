/**
 * What payouts and their items expand (docs/api.md section 14): a payout's `organisation`, an
 * item's `payment` (null stays null); the organisation with its contact details (section 15). One batch query per page (operations/expansion.ts).
 */
import { toOrganisationWithDetails, withOrganisationContactDetails, type OrganisationRowWithDetails } from '@dms/domain/organisation-contact-details';
import { organisationsResource } from '@dms/domain/organisations';
import { paymentsResource, toPayment, type PaymentRow } from '@dms/domain/payments';
import { declareExpansions, referencedRow, type ExpansionRegistry } from '../../operations/expansion.js';
import type { BalanceItemView, PayoutView } from './schemas.js';

/** The relations of a payout. */
export const PAYOUT_EXPANSIONS = declareExpansions('payout', {
  organisation: referencedRow<PayoutView, OrganisationRowWithDetails>(organisationsResource, (p) => p.organisation_id, toOrganisationWithDetails, {
    select: (db, q) => withOrganisationContactDetails(db)(q),
  }),
} satisfies ExpansionRegistry<PayoutView>);

/** The relations of a balance item. */
export const BALANCE_ITEM_EXPANSIONS = declareExpansions('balance_item', {
  payment: referencedRow<BalanceItemView, PaymentRow>(paymentsResource, (i) => i.payment as string | null, toPayment),
} satisfies ExpansionRegistry<BalanceItemView>);
