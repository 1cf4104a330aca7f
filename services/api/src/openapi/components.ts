/**
 * The named schemas of the OpenAPI document. Resource schemas are the very objects the domain
 * modules hand to Ajv (`validator(schema)`), so what is documented is what is enforced; the error
 * schema comes from the `ERROR_CODES` registry of `@dms/errors`.
 */
import { ERROR_CODES } from '@dms/errors';
import type { JsonSchema } from '../http/validation.js';
import { customerSchemas } from '../domain/customers.js';
import { debtSchemas } from '../domain/debts.js';
import { deletedObjectSchema } from '../domain/deleted.js';
import { eventSchema } from '../domain/events.js';
import { organisationSchemas } from '../domain/organisations.js';
import { paymentSchemas } from '../domain/payments.js';
import { reasonBodySchema } from '../domain/schema-parts.js';
import { tenantSchemas } from '../domain/tenants.js';
import { webhookDeliverySchema } from '../domain/webhook-deliveries.js';
import { webhookSchemas } from '../domain/webhooks.js';

const ERROR_TYPES = [...new Set(Object.values(ERROR_CODES).map((e) => e.type))];

/** The error body of CONTRACT section 3. */
const errorSchema: JsonSchema = {
  type: 'object',
  required: ['object', 'type', 'code', 'message', 'request_id'],
  properties: {
    object: { const: 'error' },
    type: { type: 'string', enum: ERROR_TYPES },
    code: { type: 'string', enum: Object.keys(ERROR_CODES), description: 'Stable error code; see the response descriptions.' },
    message: { type: 'string', description: 'Human-readable explanation (generic for 5xx).' },
    param: { type: 'string', description: 'The parameter, header or body field at fault (`contact_details[0].value`).' },
    errors: {
      type: 'array',
      description: 'Every field problem, when there are several.',
      items: { type: 'object', required: ['param', 'message'], properties: { param: { type: 'string' }, message: { type: 'string' } } },
    },
    request_id: { type: 'string', description: 'The `Request-Id` of the failed request; quote it to support.' },
  },
};

/** Every named schema, by component name. */
export const COMPONENT_SCHEMAS = {
  Organisation: organisationSchemas.object,
  OrganisationCreate: organisationSchemas.create,
  OrganisationUpdate: organisationSchemas.update,
  Customer: customerSchemas.object,
  CustomerCreate: customerSchemas.create,
  CustomerUpdate: customerSchemas.update,
  DeletedCustomer: deletedObjectSchema('customer'),
  Debt: debtSchemas.object,
  DebtCreate: debtSchemas.create,
  DebtUpdate: debtSchemas.update,
  DeletedDebt: deletedObjectSchema('debt'),
  DebtActionReason: reasonBodySchema,
  Payment: paymentSchemas.object,
  PaymentCreate: paymentSchemas.create,
  Tenant: tenantSchemas.object,
  WebhookEndpoint: webhookSchemas.object,
  WebhookEndpointCreate: webhookSchemas.create,
  WebhookEndpointUpdate: webhookSchemas.update,
  DeletedWebhookEndpoint: deletedObjectSchema('webhook_endpoint'),
  WebhookDelivery: webhookDeliverySchema,
  Event: eventSchema,
  Error: errorSchema,
  ProbeStatus: { type: 'object', required: ['status'], properties: { status: { type: 'string', enum: ['ok', 'ready', 'unavailable'] } } },
  Text: { type: 'string' },
  OpenApiDocument: { type: 'object', description: 'An OpenAPI 3.1 document.' },
} satisfies Record<string, JsonSchema>;

export type ComponentName = keyof typeof COMPONENT_SCHEMAS;
