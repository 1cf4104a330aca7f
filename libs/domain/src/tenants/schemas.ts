/**
 * Tenant schemas (docs/api.md sections 5 and 10): the public object of `/tenants/me`, the body of
 * its update and the stored row, with their types derived from them.
 */
import {
  DateColumn,
  Nullable,
  Type,
  currencySchema,
  iso,
  metadataPatchSchema,
  metadataSchema,
  objectId,
  textSchema,
  timestampProperties,
  updateBody,
  type Static,
} from '../kernel/schemas.js';

/**
 * The tenant's `configurations` (docs/api.md section 15): account-wide settings in the public
 * API's shape, each key validated (an unknown key or a value of the wrong shape is 400 naming it).
 */
export const TenantConfigurations = Type.Object(
  {
    default_currency: Type.Optional(currencySchema),
    default_locale: Type.Optional(
      Type.String({ pattern: '^[a-z]{2}(-[A-Z]{2})?$', maxLength: 5, description: 'Locale new customers get when none is given, e.g. `en-GB`.' }),
    ),
    retention: Type.Optional(
      Type.Object(
        {
          erase_after_days: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 36_500,
              description:
                "Days after a customer's last debt reaches a terminal status before the worker erases the customer (docs/api.md section 18); default 2190.",
            }),
          ),
        },
        { additionalProperties: false, description: 'How long personal data is kept (docs/api.md section 18).' },
      ),
    ),
  },
  { additionalProperties: false, description: "The account's settings, one key per concern (`PATCH` replaces the keys it gives)." },
);
export type TenantConfigurations = Static<typeof TenantConfigurations>;

/** The public tenant object: the account that owns every object a token can reach. */
export const Tenant = Type.Object({
  id: objectId('ten'),
  object: Type.Literal('tenant'),
  name: Type.String(),
  description: Nullable(Type.String(), { description: 'Free text about the account; null until set.' }),
  livemode: Type.Boolean({ description: 'False for the test-mode tenant that test clients act in (docs/api.md section 15).' }),
  configurations: TenantConfigurations,
  metadata: metadataSchema,
  ...timestampProperties,
});

/** `PATCH`/`PUT /tenants/me` body. */
export const TenantUpdate = updateBody({
  name: textSchema(200, 'Name of the account.'),
  description: Nullable(textSchema(1000, 'Free text about the account; null clears it.')),
  configurations: TenantConfigurations,
  metadata: metadataPatchSchema,
});

/** A row of `tenants` (migrations 001_core, 016_tenant_description, 025 and 050_test_mode). */
export const TenantRow = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.Optional(Nullable(Type.String())),
  /** False for a test-mode tenant (migration 050_test_mode, docs/api.md section 15). */
  livemode: Type.Boolean(),
  /** The live tenant a test-mode tenant is paired with; null for a live tenant. */
  live_tenant_id: Nullable(Type.String()),
  /** How far the tenant's clock runs ahead of the database's, seconds (only a test tenant's). */
  clock_offset_seconds: Type.Union([Type.Number(), Type.String()]),
  configurations: Type.Optional(TenantConfigurations),
  metadata: Type.Optional(metadataSchema),
  created_at: DateColumn,
  updated_at: DateColumn,
});

export type Tenant = Static<typeof Tenant>;
export type TenantUpdate = Static<typeof TenantUpdate>;
export type TenantRow = Static<typeof TenantRow>;

/** Maps a `tenants` row to its public shape (timestamps RFC 3339 UTC). */
export function tenantFromRow(row: TenantRow): Tenant {
  return {
    id: row.id,
    object: 'tenant',
    name: row.name,
    description: row.description ?? null,
    livemode: row.livemode,
    configurations: row.configurations ?? {},
    metadata: row.metadata ?? {},
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}
