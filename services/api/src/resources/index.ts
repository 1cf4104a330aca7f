/**
 * Every operation of the API, in the order the reference lists them: the resource tables merged
 * (each resource declares its own in `resources/<name>/operations.ts`).
 */
import type { AnyOperation } from '../operations/operation.js';
import { withPutTwins } from '../operations/put-twins.js';
import { withPathAliases } from '../operations/aliases.js';
import { organisationOperations } from './organisations/operations.js';
import { customerOperations } from './customers/operations.js';
import { customerDataOperations } from './customers/data-operations.js';
import { contactDetailOperations } from './contact-details/operations.js';
import { organisationContactDetailOperations } from './organisation-contact-details/operations.js';
import { debtOperations } from './debts/operations.js';
import { debtLifecycleOperations } from './debts/lifecycle-operations.js';
import { debtCircumstanceOperations } from './debts/circumstance-operations.js';
import { paymentOperations } from './payments/operations.js';
import { lineItemOperations } from './line-items/operations.js';
import { incomeAndExpenditureOperations } from './income-and-expenditures/operations.js';
import { operatorProposalOperations, proposalOperations } from './proposals/operations.js';
import { invoiceOperations } from './invoices/operations.js';
import { paymentPlanOperations } from './payment-plans/operations.js';
import { payoutOperations } from './payouts/operations.js';
import { tenantOperations } from './tenants/operations.js';
import { communicationTemplateOperations } from './communication-templates/operations.js';
import { importOperations } from './imports/operations.js';
import { webhookOperations } from './webhooks/operations.js';
import { operatorOperations } from './operator/operations.js';
import { eventOperations } from './events/operations.js';
import { testHelperOperations } from './test-helpers/operations.js';
import { serviceOperations } from './service/operations.js';
import { communicationOperations } from './communications/operations.js';
import { callbackOperations } from './callbacks/operations.js';

/**
 * The API's operations that need a bearer token; every `PATCH` gets its `PUT` twin (docs/api.md
 * section 10), and the public API's paths their aliases (section 15).
 */
export const API_OPERATIONS: readonly AnyOperation[] = withPathAliases(
  withPutTwins([
    ...organisationOperations,
    ...customerOperations,
    ...customerDataOperations,
    ...contactDetailOperations,
    ...debtOperations,
    ...debtLifecycleOperations,
    ...debtCircumstanceOperations,
    ...lineItemOperations,
    ...invoiceOperations,
    ...paymentOperations,
    ...paymentPlanOperations,
    ...incomeAndExpenditureOperations,
    ...proposalOperations,
    ...payoutOperations,
    ...tenantOperations,
    ...communicationTemplateOperations,
    ...communicationOperations,
    ...importOperations,
    ...webhookOperations,
    ...eventOperations,
    ...operatorOperations,
    ...operatorProposalOperations,
    // The public API's organisation sub-resource (docs/api.md section 15).
    ...organisationContactDetailOperations,
    ...testHelperOperations,
  ]),
);

/** Every documented operation: the API's, then the public operational ones. */
export const ALL_OPERATIONS: readonly AnyOperation[] = [...API_OPERATIONS, ...serviceOperations, ...callbackOperations];

/** The public operations mounted before authentication: the service's own and the providers' callbacks. */
export const PUBLIC_OPERATIONS: readonly AnyOperation[] = [...serviceOperations, ...callbackOperations];
