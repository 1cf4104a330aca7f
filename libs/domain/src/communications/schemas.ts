/**
 * Communication schemas (docs/api.md section 13): the public object (its `debt`, `customer`,
 * `template` and `contact_detail` as ids; the API adds the `expand[]` forms), the stored row, and
 * the operator's classification body (section 12).
 */
import { DELIVERY_METHODS } from '../communication-templates/schemas.js';
import { DateColumn, Nullable, StringEnum, Type, metadataSchema, objectId, rowColumns, timestampProperties, type Static } from '../kernel/schemas.js';
import { COMMUNICATION_STATUSES, DIRECTIONS } from './states.js';

/** How an operator classifies an inbound communication (docs/api.md section 12). */
export const CLASSIFICATIONS = ['query', 'dispute', 'other'] as const;
export type Classification = (typeof CLASSIFICATIONS)[number];

/** How a communication travelled: the template channels, and `portal` for what a customer wrote on the portal (inbound only, docs/api.md section 18). */
export const COMMUNICATION_METHODS = [...DELIVERY_METHODS, 'portal'] as const;
export type CommunicationMethod = (typeof COMMUNICATION_METHODS)[number];

/** The public communication object. */
export const Communication = Type.Object({
  id: objectId('com'),
  object: Type.Literal('communication'),
  debt: Type.String({ description: 'Id of the debt.' }),
  customer: Type.String({ description: 'Id of the customer.' }),
  template: Nullable(Type.String({ description: 'Id of the template an outbound communication was made from (null for inbound ones).' })),
  template_version: Nullable(Type.Integer({ minimum: 1, description: 'The version of the template it used.' })),
  status: StringEnum(COMMUNICATION_STATUSES, {
    description: 'Outbound: `queued` → `sent` → `delivered` | `failed` | `bounced` (or `queued` → `failed`); inbound: `received`.',
  }),
  status_reason: Nullable(Type.String({ description: 'Why it failed or bounced.' })),
  direction: StringEnum(DIRECTIONS),
  delivery_method: StringEnum(COMMUNICATION_METHODS, {
    description: 'The channel; `portal` for a dispute or question the customer wrote on the portal (inbound).',
  }),
  contact_detail: Nullable(Type.String({ description: 'Id of the contact detail it went to (or came from, when known).' })),
  provider: Nullable(Type.String({ description: 'The provider that carried it: `smtp`, `vonage`, `local-print`.' })),
  provider_reference: Nullable(Type.String({ description: "The provider's id of the message (an email's Message-ID, an SMS message id)." })),
  subject: Nullable(Type.String({ description: 'The rendered subject (email, letter heading) or the subject of a reply.' })),
  body: Nullable(Type.String({ description: 'The rendered text, or the text of a reply.' })),
  classification: Nullable(StringEnum(CLASSIFICATIONS, { description: "An operator's classification of an inbound communication." })),
  metadata: metadataSchema,
  ...timestampProperties,
});

/** A row of `communications`. */
export const CommunicationRow = Type.Object({
  ...rowColumns,
  seq: Type.Number(),
  debt_id: Type.String(),
  customer_id: Type.String(),
  template_id: Nullable(Type.String()),
  template_version: Nullable(Type.Integer()),
  contact_detail_id: Nullable(Type.String()),
  direction: StringEnum(DIRECTIONS),
  delivery_method: StringEnum(COMMUNICATION_METHODS),
  status: StringEnum(COMMUNICATION_STATUSES),
  step: Nullable(Type.Integer()),
  provider: Nullable(Type.String()),
  provider_reference: Nullable(Type.String()),
  subject: Nullable(Type.String()),
  body: Nullable(Type.String()),
  status_reason: Nullable(Type.String()),
  classification: Nullable(StringEnum(CLASSIFICATIONS)),
  metadata: metadataSchema,
  handed_at: Nullable(DateColumn),
  sending_at: Nullable(DateColumn),
  next_attempt_at: Nullable(DateColumn),
  first_attempt_at: Nullable(DateColumn),
  attempts: Type.Integer(),
});

/** `POST /operator/communications/{id}/classify` body. */
export const CommunicationClassify = Type.Object(
  {
    as: StringEnum(CLASSIFICATIONS, {
      description: '`query` moves the debt to `queried`, `dispute` to `disputed`, `other` records the classification alone.',
    }),
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'Why, recorded on the debt status.' })),
  },
  { additionalProperties: false },
);

export type Communication = Static<typeof Communication>;
export type CommunicationRow = Static<typeof CommunicationRow>;
export type CommunicationClassify = Static<typeof CommunicationClassify>;
