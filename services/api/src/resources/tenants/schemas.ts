/**
 * Tenant schemas (docs/api.md section 5): the public object of `GET /tenants/me`, with its type
 * derived from it (the stored row's type is @dms/tenants').
 */
import { Type, objectId, timestampProperties, type Static } from '../../schemas/common.js';

/** The public tenant object: the account that owns every object a token can reach. */
export const Tenant = Type.Object({ id: objectId('ten'), object: Type.Literal('tenant'), name: Type.String(), ...timestampProperties });

export type Tenant = Static<typeof Tenant>;
