/**
 * Every resource of the domain, one line each, and the central lists built from their
 * declarations (docs/api.md section 3): id prefixes, tenant-scoped tables, event types and OAuth
 * scopes. Nothing else lists them, so adding a resource is its own folder plus one line here (and
 * its migration, and its operations in the API).
 *
 * Dependencies between the folders point one way, lowest first: kernel ← events, tenants,
 * communication-templates ← organisations ← contact-details ← organisation-contact-details, customers ← line-items ← payment-plans ← debts ← invoices,
 * payouts ← payments ← communications, imports ← webhooks ← personal-data. A folder imports only folders before it,
 * but for income-and-expenditure: its arithmetic (amounts, statement, affordability) is pure and
 * imported file by file by organisations and payment-plans; its store comes after debts, and
 * proposals after it.
 */
import type { AnyResource } from './kernel/resource.js';
import { eventsResource } from './events/resource.js';
import { tenantsResource } from './tenants/resource.js';
import { organisationsResource } from './organisations/resource.js';
import { contactDetailsResource } from './contact-details/resource.js';
import { organisationContactDetailsResource } from './organisation-contact-details/resource.js';
import { customersResource } from './customers/resource.js';
import { lineItemsResource } from './line-items/resource.js';
import { paymentPlansResource } from './payment-plans/resource.js';
import { debtsResource } from './debts/resource.js';
import { invoicesResource } from './invoices/resource.js';
import { paymentsResource } from './payments/resource.js';
import { webhookDeliveriesResource, webhookEndpointsResource } from './webhooks/resource.js';
import { balanceItemsResource, payoutAccountsResource, payoutsResource } from './payouts/resource.js';
import { communicationTemplatesResource, communicationTemplateVersionsResource } from './communication-templates/resource.js';
import { communicationsResource } from './communications/resource.js';
import { importErrorsResource, importsResource } from './imports/resource.js';
import { incomeAndExpendituresResource } from './income-and-expenditure/resource.js';
import { proposalsResource } from './proposals/resource.js';
import { customerAccessLogResource } from './personal-data/resource.js';

/** Every resource; scopes and event types are listed in this order. */
export const RESOURCES = [
  tenantsResource,
  debtsResource,
  lineItemsResource,
  invoicesResource,
  paymentsResource,
  paymentPlansResource,
  incomeAndExpendituresResource,
  proposalsResource,
  customersResource,
  contactDetailsResource,
  organisationsResource,
  organisationContactDetailsResource,
  communicationTemplatesResource,
  communicationTemplateVersionsResource,
  payoutsResource,
  balanceItemsResource,
  payoutAccountsResource,
  communicationsResource,
  importsResource,
  importErrorsResource,
  webhookEndpointsResource,
  webhookDeliveriesResource,
  eventsResource,
  customerAccessLogResource,
] as const satisfies readonly AnyResource[];

type Declared = (typeof RESOURCES)[number];

/** Object type → id prefix (`debt` → `deb`), for every resource (docs/api.md section 3). */
export const ID_PREFIXES: Readonly<Record<Declared['object'], Declared['idPrefix']>> = Object.fromEntries(
  RESOURCES.map((r) => [r.object, r.idPrefix]),
) as Record<Declared['object'], Declared['idPrefix']>;

/** Tables whose rows belong to a tenant: reached only through the scoped finder (kernel/scoped.ts). */
export const TENANT_TABLES: readonly string[] = RESOURCES.filter((r) => (r as AnyResource).tenantScoped !== false).map((r) => r.table);

/** Every event type (docs/api.md section 7), in the order the reference lists them. */
export const EVENT_TYPES = RESOURCES.flatMap((r) => r.events as readonly Declared['events'][number][]);
export type EventType = (typeof EVENT_TYPES)[number];

type ScopeOf<R> = R extends { scopes: readonly (infer S)[] } ? S : never;
/** An OAuth 2.0 scope a tenant client may hold. */
export type TenantScope = ScopeOf<Declared>;
/** An OAuth 2.0 scope of the resource API: a tenant's or an operator's. */
export type Scope = TenantScope | OperatorScope;

/** Every OAuth 2.0 scope a tenant client may be granted (docs/api.md section 2). */
export const SCOPES: readonly TenantScope[] = RESOURCES.flatMap((r) => ('scopes' in r ? r.scopes : []) as readonly TenantScope[]);

/**
 * The scopes of operator clients only (docs/api.md section 12): no tenant client can be granted
 * them. `operations:read` also reads, and `operations:write` also writes, what any tenant scope
 * does, for the tenant an operator names in `Tenant-Id`.
 */
export const OPERATOR_SCOPES = ['operations:read', 'operations:write'] as const;
export type OperatorScope = (typeof OPERATOR_SCOPES)[number];
