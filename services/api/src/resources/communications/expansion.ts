/**
 * What a communication expands (docs/api.md section 13): `debt`, `customer`, `template` (as
 * `{id, object, name}`) and `contact_detail` in place of their ids. One batch query per page.
 */
import { contactDetailsResource, toContactDetail } from '@dms/domain/contact-details';
import { communicationTemplatesResource } from '@dms/domain/communication-templates';
import { customersResource, toCustomer, withContactDetails, type CustomerRow } from '@dms/domain/customers';
import { declareExpansions, referencedRow, type ExpansionRegistry } from '../../operations/expansion.js';
import { embeddedDebt } from '../debts/expansion.js';
import type { CommunicationView as Communication } from './schemas.js';

/** The relations of a communication. */
export const COMMUNICATION_EXPANSIONS = declareExpansions('communication', {
  debt: embeddedDebt<Communication>(),
  customer: referencedRow<Communication, CustomerRow>(customersResource, (c) => c.customer as string, toCustomer, {
    select: (db, q) => withContactDetails(db)(q),
  }),
  template: referencedRow<Communication, { id: string; name: string }>(
    communicationTemplatesResource,
    (c) => c.template as string | null,
    (r) => ({ id: r.id, object: 'communication_template', name: r.name }),
  ),
  contact_detail: referencedRow<Communication, Parameters<typeof toContactDetail>[0] & { id: string }>(
    contactDetailsResource,
    (c) => c.contact_detail as string | null,
    toContactDetail,
  ),
} satisfies ExpansionRegistry<Communication>);
