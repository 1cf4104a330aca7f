/**
 * Which documented operations each declared-events test checks (docs/api.md section 7, OpenAPI
 * `x-events`), as `<method> <path>`. Each test ends with `expectChecked` (event-check.ts), which
 * fails unless the operations it ran are exactly its entry here; events.test.ts fails unless every
 * operation of the OpenAPI document that declares events is in some entry. An operation added with
 * `events: [...]` and no check therefore fails the suite.
 */
export const CHECKED_OPERATIONS = {
  /** events.test.ts: the core chain. */
  core: [
    'post /organisations',
    'patch /organisations/{id}',
    'put /organisations/{id}',
    'post /customers',
    'patch /customers/{id}',
    'post /customers/{customerId}/contact_details',
    'patch /customers/{customerId}/contact_details/{id}',
    'delete /customers/{customerId}/contact_details/{id}',
    'post /debts',
    'patch /debts/{id}',
    'post /debts/{debtId}/line_items',
    'post /debts/{id}/ready',
    'post /debts/{id}/pause',
    'post /debts/{id}/resume',
    'post /debts/{id}/dispute',
    'post /debts/{id}/resolve-dispute',
    'post /debts/{debtId}/payments',
    'post /debts/{id}/withdraw',
    'delete /debts/{id}',
    'post /webhooks',
    'patch /webhooks/{id}',
    'delete /customers/{id}',
  ],
  /** events-more.test.ts: money, plans, templates, imports, webhook tests, organisation contact details. */
  money: [
    'post /debts/{debtId}/income_and_expenditures',
    'put /debts/{id}',
    'put /customers/{id}',
    'post /debts/{debtId}/contact-details',
    'put /customers/{customerId}/contact_details/{id}',
    'post /debts/{debtId}/invoices',
    'patch /debts/{debtId}/invoices/{id}',
    'put /debts/{debtId}/invoices/{id}',
    'patch /debts/{debtId}/payments/{id}',
    'put /debts/{debtId}/payments/{id}',
    'post /debts/{debtId}/payments/{id}/refund',
    'post /debts/{debtId}/payment_plans',
    'patch /payment_plans/{id}/delay',
    'put /payment_plans/{id}/delay',
    'patch /payment_plans/{id}/reschedule',
    'put /payment_plans/{id}/reschedule',
    'patch /payment-plans/{id}/delay',
    'put /payment-plans/{id}/delay',
    'patch /payment-plans/{id}/reschedule',
    'put /payment-plans/{id}/reschedule',
    'post /payment_plans/{id}/cancel',
    'post /payment_plans',
    'post /payment-plans/{id}/cancel',
    'post /payment-plans',
    'post /debts/{id}/settle',
    'post /communication_templates',
    'patch /communication_templates/{id}',
    'put /communication_templates/{id}',
    'post /imports',
    'post /webhooks/{id}/test',
    'post /organisations/{organisationId}/contact_details',
    'patch /organisations/{organisationId}/contact_details/{id}',
    'put /organisations/{organisationId}/contact_details/{id}',
  ],
  /** events-more.test.ts: the operator's operations and the payment and inbound test helpers. */
  operator: [
    'post /test_helpers/debts/{id}/inbound',
    'post /operator/communications/{id}/classify',
    'post /operator/debts/{id}/status',
    'post /operator/contact_details/{id}/undeliverable',
    'post /test_helpers/payments/{id}/fail',
    'post /operator/payouts/run',
    'post /operator/payouts/{id}/status',
  ],
  /** events-callbacks.test.ts: the provider callbacks and the bounce and SMS test helpers, on what the engine sent. */
  callbacks: [
    'post /callbacks/email',
    'post /callbacks/sms/receipts',
    'post /callbacks/sms/inbound',
    'post /test_helpers/communications/{id}/bounce',
    'post /test_helpers/debts/{id}/inbound',
  ],
} as const satisfies Record<string, readonly string[]>;
