/**
 * Every operation of the API, in the order the reference lists them: the resource tables merged
 * (each resource declares its own in `resources/<name>/operations.ts`).
 */
import type { AnyOperation } from '../operations/operation.js';
import { withPutTwins } from '../operations/put-twins.js';
import { organisationOperations } from './organisations/operations.js';
import { customerOperations } from './customers/operations.js';
import { contactDetailOperations } from './contact-details/operations.js';
import { debtOperations } from './debts/operations.js';
import { debtLifecycleOperations } from './debts/lifecycle-operations.js';
import { paymentOperations } from './payments/operations.js';
import { lineItemOperations } from './line-items/operations.js';
import { invoiceOperations } from './invoices/operations.js';
import { paymentPlanOperations } from './payment-plans/operations.js';
import { tenantOperations } from './tenants/operations.js';
import { communicationTemplateOperations } from './communication-templates/operations.js';
import { importOperations } from './imports/operations.js';
import { webhookOperations } from './webhooks/operations.js';
import { operatorOperations } from './operator/operations.js';
import { eventOperations } from './events/operations.js';
import { serviceOperations } from './service/operations.js';

/** The API's operations that need a bearer token; every `PATCH` gets its `PUT` twin (docs/api.md section 10). */
export const API_OPERATIONS: readonly AnyOperation[] = withPutTwins([
  ...organisationOperations,
  ...customerOperations,
  ...contactDetailOperations,
  ...debtOperations,
  ...debtLifecycleOperations,
  ...lineItemOperations,
  ...invoiceOperations,
  ...paymentOperations,
  ...paymentPlanOperations,
  ...tenantOperations,
  ...communicationTemplateOperations,
  ...importOperations,
  ...webhookOperations,
  ...eventOperations,
  ...operatorOperations,
]);

/** Every documented operation: the API's, then the public operational ones. */
export const ALL_OPERATIONS: readonly AnyOperation[] = [...API_OPERATIONS, ...serviceOperations];
