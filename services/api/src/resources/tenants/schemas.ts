/**
 * Tenant schemas (docs/api.md section 5): the public object of `GET /tenants/me` and the stored
 * row, with their types derived from them.
 */
import { DateColumn, Type, objectId, timestampProperties, type Static } from '../../schemas/common.js';

/** The public tenant object: the account that owns every object a token can reach. */
export const Tenant = Type.Object({ id: objectId('ten'), object: Type.Literal('tenant'), name: Type.String(), ...timestampProperties });

/** A row of `tenants`. */
export const TenantRow = Type.Object({ id: Type.String(), name: Type.String(), created_at: DateColumn, updated_at: DateColumn });

export type Tenant = Static<typeof Tenant>;
export type TenantRow = Static<typeof TenantRow>;
