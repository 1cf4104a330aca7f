/**
 * The communication as the API shows it (docs/api.md sections 10 and 13): the domain's object with
 * its `debt`, `customer`, `template` and `contact_detail` as ids or, with `expand[]`, the objects
 * (`template` as `{id, object, name}`).
 */
import { Type, type Static } from '@sinclair/typebox';
import { Communication as CommunicationObject } from '@dms/domain/communications';
import type { Customer } from '@dms/domain/customers';
import { ContactDetail } from '@dms/domain/contact-details';
import { DebtRef } from '../debts/schemas.js';

/** `template` expanded: who made the communication, by name. */
export const TemplateSummary = Type.Object({
  id: Type.String(),
  object: Type.Literal('communication_template'),
  name: Type.String(),
});

const CustomerRef = Type.Unsafe<string | Customer>({
  description: 'Customer id, or the customer with `expand[]=customer`.',
  oneOf: [{ type: 'string' }, { $ref: '#/components/schemas/Customer' }],
});
const TemplateRef = Type.Unsafe<string | null | Static<typeof TemplateSummary>>({
  description: 'Template id (null for inbound and built-in templates), or `{id, object, name}` with `expand[]=template`.',
  oneOf: [{ type: 'null' }, { type: 'string' }, TemplateSummary],
});
const ContactDetailRef = Type.Unsafe<string | null | Static<typeof ContactDetail>>({
  description: 'Contact detail id (or null), or the detail with `expand[]=contact_detail`.',
  oneOf: [{ type: 'null' }, { type: 'string' }, ContactDetail],
});

/** The public communication object. */
export const Communication = Type.Object({
  ...CommunicationObject.properties,
  debt: DebtRef,
  customer: CustomerRef,
  template: TemplateRef,
  contact_detail: ContactDetailRef,
});

/** The communication as responses show it. */
export type CommunicationView = Static<typeof Communication>;
