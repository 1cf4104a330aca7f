/**
 * The ordered list of schema migrations. Listed explicitly (rather than scanned from disk) so the
 * compiled ESM build, containers and tests all run the same set in the same order.
 */
import type { Knex } from 'knex';
import * as core from './001_core.js';
import * as events from './002_events.js';
import * as searchIndexes from './003_search_indexes.js';
import * as webhooks from './004_webhooks.js';
import * as idempotency from './005_idempotency.js';
import * as perf from './006_perf.js';
import * as counterMembership from './007_counter_membership.js';
import * as counterShards from './008_counter_shards.js';
import * as deliverySuccess from './009_delivery_success.js';
import * as lineItems from './010_line_items.js';
import * as invoices from './011_invoices.js';
import * as paymentOutcomes from './012_payment_outcomes.js';
import * as paymentPlans from './013_payment_plans.js';
import * as contactDetails from './015_contact_details.js';
import * as tenantDescription from './016_tenant_description.js';
import * as debtSearchFields from './017_debt_search_fields.js';
import * as planSearch from './018_plan_search.js';
import * as webhookOperations from './020_webhook_operations.js';
import * as partitionedHistory from './021_partitioned_history.js';
import * as historyWithoutForeignKeys from './022_history_without_foreign_keys.js';
import * as communicationTemplates from './023_communication_templates.js';
import * as operatorClients from './024_operator_clients.js';
import * as tenantClock from './025_tenant_clock_and_configurations.js';
import * as payouts from './035_payouts.js';
import * as balanceLedger from './051_balance_ledger.js';
import * as testMode from './050_test_mode.js';
import * as eventTraceContext from './026_event_trace_context.js';
import * as communications from './030_communications.js';
import * as signatureSchemes from './045_webhook_signature_schemes.js';
import * as metadataSearch from './046_metadata_search.js';
import * as publicApiFields from './047_public_api_fields.js';
import * as imports from './040_imports.js';
import * as organisationContactDetails from './065_organisation_contact_details.js';
import * as counterStatementInserts from './055_counter_statement_inserts.js';
import * as organisationContactDetailsDeleted from './066_organisation_contact_details_deleted.js';
import * as engineClaimIndexes from './067_engine_claim_indexes.js';
import * as communicationAttempts from './068_communication_attempts.js';
import * as webhookFanOut from './079_webhook_fan_out.js';
import * as customerAccessLog from './089_customer_access_log.js';
import * as customerErasure from './090_customer_erasure.js';
import * as contactPreferences from './080_contact_preferences.js';
import * as portal from './085_portal.js';
import * as incomeAndExpenditures from './087_income_and_expenditures.js';
import * as timedStatusesIndex from './088_timed_statuses_index.js';
import * as portalCommunications from './092_portal_communications.js';
import * as paymentSetups from './095_payment_setups.js';
import * as planPaymentMethods from './096_plan_payment_methods.js';
import * as paymentPromises from './097_payment_promises.js';
import * as proposals from './098_proposals.js';
import * as sealedBirthDates from './101_sealed_birth_dates.js';
import * as sealedStatementDetails from './102_sealed_statement_details.js';
import * as promiseReminders from './105_promise_reminders.js';
import * as planActors from './107_plan_actors.js';
import * as erasedIdempotentResponses from './108_erased_idempotent_responses.js';
import * as paymentRefunds from './109_payment_refunds.js';

export interface Migration {
  up: (knex: Knex) => Promise<void>;
  down: (knex: Knex) => Promise<void>;
}

/** Migrations by name, oldest first. New migrations are appended here. */
export const MIGRATIONS: Array<[string, Migration]> = [
  ['001_core', core],
  ['002_events', events],
  ['003_search_indexes', searchIndexes],
  ['004_webhooks', webhooks],
  ['005_idempotency', idempotency],
  ['006_perf', perf],
  ['007_counter_membership', counterMembership],
  ['008_counter_shards', counterShards],
  ['009_delivery_success', deliverySuccess],
  ['010_line_items', lineItems],
  ['011_invoices', invoices],
  ['012_payment_outcomes', paymentOutcomes],
  ['013_payment_plans', paymentPlans],
  ['015_contact_details', contactDetails],
  ['016_tenant_description', tenantDescription],
  ['017_debt_search_fields', debtSearchFields],
  ['018_plan_search', planSearch],
  ['020_webhook_operations', webhookOperations],
  ['021_partitioned_history', partitionedHistory],
  ['022_history_without_foreign_keys', historyWithoutForeignKeys],
  ['023_communication_templates', communicationTemplates],
  ['024_operator_clients', operatorClients],
  ['025_tenant_clock_and_configurations', tenantClock],
  ['035_payouts', payouts],
  ['050_test_mode', testMode],
  ['026_event_trace_context', eventTraceContext],
  ['030_communications', communications],
  ['045_webhook_signature_schemes', signatureSchemes],
  ['046_metadata_search', metadataSearch],
  ['047_public_api_fields', publicApiFields],
  ['040_imports', imports],
  ['051_balance_ledger', balanceLedger],
  ['055_counter_statement_inserts', counterStatementInserts],
  ['065_organisation_contact_details', organisationContactDetails],
  ['066_organisation_contact_details_deleted', organisationContactDetailsDeleted],
  ['067_engine_claim_indexes', engineClaimIndexes],
  ['068_communication_attempts', communicationAttempts],
  ['079_webhook_fan_out', webhookFanOut],
  ['080_contact_preferences', contactPreferences],
  ['085_portal', portal],
  ['087_income_and_expenditures', incomeAndExpenditures],
  ['088_timed_statuses_index', timedStatusesIndex],
  ['089_customer_access_log', customerAccessLog],
  ['090_customer_erasure', customerErasure],
  ['092_portal_communications', portalCommunications],
  ['095_payment_setups', paymentSetups],
  ['096_plan_payment_methods', planPaymentMethods],
  ['097_payment_promises', paymentPromises],
  ['098_proposals', proposals],
  ['101_sealed_birth_dates', sealedBirthDates],
  ['102_sealed_statement_details', sealedStatementDetails],
  ['105_promise_reminders', promiseReminders],
  ['107_plan_actors', planActors],
  ['108_erased_idempotent_responses', erasedIdempotentResponses],
  ['109_payment_refunds', paymentRefunds],
];
