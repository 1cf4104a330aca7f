/**
 * Tenant schemas (docs/api.md sections 5 and 10): the public object of `/tenants/me` and the body
 * of its update, with their types derived from them (the stored row's type is @dms/tenants').
 */
import { Nullable, Type, objectId, textSchema, timestampProperties, updateBody, type Static } from '../../schemas/common.js';

/** The public tenant object: the account that owns every object a token can reach. */
export const Tenant = Type.Object({
  id: objectId('ten'),
  object: Type.Literal('tenant'),
  name: Type.String(),
  description: Nullable(Type.String(), { description: 'Free text about the account; null until set.' }),
  ...timestampProperties,
});

/** `PATCH`/`PUT /tenants/me` body. */
export const TenantUpdate = updateBody({
  name: textSchema(200, 'Name of the account.'),
  description: Nullable(textSchema(1000, 'Free text about the account; null clears it.')),
});

export type Tenant = Static<typeof Tenant>;
export type TenantUpdate = Static<typeof TenantUpdate>;
