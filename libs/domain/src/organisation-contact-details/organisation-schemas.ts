/**
 * The organisation's schemas as served (docs/api.md sections 5 and 15): the create and update
 * bodies with `contact_details` (each entry a contact detail's create body) and the public object
 * with its visible details embedded. Declared here, not in organisations/, because organisation
 * contact details come after organisations in the domain's dependency order (registry.ts).
 */
import { Type, updateBody, type Static } from '../kernel/schemas.js';
import { Organisation, OrganisationCreate, OrganisationUpdate } from '../organisations/schemas.js';
import { OrganisationContactDetail, OrganisationContactDetailCreate } from './schemas.js';

const contactDetails = Type.Array(OrganisationContactDetailCreate, {
  maxItems: 20,
  description:
    'On create, each entry becomes an organisation contact detail; on update, the whole set of visible contact details (equal entries keep their object, the others are deleted).',
});

/** `POST /organisations` body (OpenAPI `OrganisationCreate`). */
export const OrganisationCreateWithDetails = Type.Object(
  { ...OrganisationCreate.properties, contact_details: Type.Optional(contactDetails) },
  { additionalProperties: false },
);

/** `PATCH`/`PUT /organisations/{id}` body (OpenAPI `OrganisationUpdate`). */
export const OrganisationUpdateWithDetails = updateBody({ ...OrganisationUpdate.properties, contact_details: contactDetails });

const { metadata, created_at, updated_at, ...own } = Organisation.properties;

/** The public organisation object (OpenAPI `Organisation`): the organisation's fields and its contact details. */
export const OrganisationWithContactDetails = Type.Object({
  ...own,
  contact_details: Type.Array(OrganisationContactDetail, { description: 'The visible contact details, oldest first (section 15).' }),
  metadata,
  created_at,
  updated_at,
});

export type OrganisationCreateWithDetails = Static<typeof OrganisationCreateWithDetails>;
export type OrganisationUpdateWithDetails = Static<typeof OrganisationUpdateWithDetails>;
export type OrganisationWithContactDetails = Static<typeof OrganisationWithContactDetails>;
