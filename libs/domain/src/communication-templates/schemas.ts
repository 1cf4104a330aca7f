/**
 * Communication template schemas (docs/api.md section 13): the create and update bodies, the
 * public object (with the current version's text) and its versions, and the stored rows.
 */
import {
  DateColumn,
  Nullable,
  StringEnum,
  Type,
  metadataPatchSchema,
  metadataSchema,
  objectId,
  rowColumns,
  textSchema,
  timestampProperties,
  updateBody,
  type Static,
} from '../kernel/schemas.js';

/** How a communication reaches the customer (docs/api.md section 13). */
export const DELIVERY_METHODS = ['email', 'sms', 'letter'] as const;
export type DeliveryMethod = (typeof DELIVERY_METHODS)[number];

/** Longest template text accepted, characters (the renderer's own limit is larger). */
export const MAX_TEMPLATE_TEXT = 50_000;

const text = {
  subject: Nullable(textSchema(500, 'Subject line (Liquid): required for email, optional for letters (a heading), none for SMS.')),
  body: Type.String({
    minLength: 1,
    maxLength: MAX_TEMPLATE_TEXT,
    description: 'The text (Liquid, escaped by default; docs/api.md section 13 lists the variables).',
  }),
};

/** `POST /communication_templates` body. */
export const CommunicationTemplateCreate = Type.Object(
  {
    name: textSchema(100, 'Unique name within the tenant, referenced by strategy steps (e.g. `reminder-day-0-email`).'),
    delivery_method: StringEnum(DELIVERY_METHODS, { description: 'The channel the template is written for.' }),
    subject: Type.Optional(text.subject),
    body: text.body,
    metadata: Type.Optional(metadataSchema),
  },
  { additionalProperties: false },
);

/** `PATCH /communication_templates/{id}` body: a new `subject` or `body` makes a new version. */
export const CommunicationTemplateUpdate = updateBody({
  name: CommunicationTemplateCreate.properties.name,
  subject: text.subject,
  body: text.body,
  metadata: metadataPatchSchema,
});

/** The public template object: the current version's text. */
export const CommunicationTemplate = Type.Object({
  id: objectId('ctpl'),
  object: Type.Literal('communication_template'),
  name: Type.String(),
  delivery_method: StringEnum(DELIVERY_METHODS),
  version: Type.Integer({ minimum: 1, description: 'Number of the current version; an edit of `subject` or `body` adds one.' }),
  subject: Nullable(Type.String()),
  body: Type.String(),
  metadata: metadataSchema,
  ...timestampProperties,
});

/** One version of a template's text (immutable). */
export const CommunicationTemplateVersion = Type.Object({
  id: objectId('ctv'),
  object: Type.Literal('communication_template_version'),
  template: Type.String({ description: 'Id of the template.' }),
  version: Type.Integer({ minimum: 1 }),
  subject: Nullable(Type.String()),
  body: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
});

/** A row of `communication_templates`, read with its current version's text. */
export const CommunicationTemplateRow = Type.Object({
  ...rowColumns,
  seq: Type.Number(),
  name: Type.String(),
  delivery_method: StringEnum(DELIVERY_METHODS),
  version: Type.Integer(),
  subject: Nullable(Type.String()),
  body: Type.String(),
  metadata: metadataSchema,
});

/** A row of `communication_template_versions`. */
export const CommunicationTemplateVersionRow = Type.Object({
  ...rowColumns,
  seq: Type.Number(),
  template_id: Type.String(),
  version: Type.Integer(),
  subject: Nullable(Type.String()),
  body: Type.String(),
  created_at: DateColumn,
});

export type CommunicationTemplateCreate = Static<typeof CommunicationTemplateCreate>;
export type CommunicationTemplateUpdate = Static<typeof CommunicationTemplateUpdate>;
export type CommunicationTemplate = Static<typeof CommunicationTemplate>;
export type CommunicationTemplateVersion = Static<typeof CommunicationTemplateVersion>;
export type CommunicationTemplateRow = Static<typeof CommunicationTemplateRow>;
export type CommunicationTemplateVersionRow = Static<typeof CommunicationTemplateVersionRow>;
