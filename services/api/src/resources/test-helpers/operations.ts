/**
 * Test helpers (docs/api.md section 15): what only a test client may do, to try an integration
 * without waiting or without a customer: read and advance its tenant's clock (the worker then
 * makes the time-driven changes due by that clock: missed instalments, ends of pauses), and
 * simulate a payment failing at its provider, a customer's reply and a bounced email (each through
 * the code path of the real thing, @dms/domain's communications/simulate.ts). Every one is
 * `testOnly`: a live token gets 404 `route_not_found`, as for a path that does not exist.
 */
import { ClockAdvance, TestClock, advanceTenantClock, readTenantClock } from '@dms/domain/tenants';
import { failPayment, toPayment, type PaymentRow } from '@dms/domain/payments';
import { SimulatedBounce, SimulatedReply, simulateBounce, simulateReply, toCommunication, type CommunicationRow } from '@dms/domain/communications';
import { actor, defineOperation, type AnyOperation } from '../../operations/operation.js';
import { querySchema } from '../../operations/query.js';
import { presenter } from '../../operations/expansion.js';
import { PAYMENT_EXPANSIONS } from '../payments/expansion.js';
import { Payment } from '../payments/schemas.js';
import { COMMUNICATION_EXPANSIONS } from '../communications/expansion.js';
import { Communication } from '../communications/schemas.js';

const tag = 'Test helpers';
const clock = { name: 'TestClock', schema: TestClock, status: 200 } as const;
const showPayment = presenter((rows: PaymentRow[]) => rows.map(toPayment), PAYMENT_EXPANSIONS);
const showCommunication = presenter((rows: CommunicationRow[]) => rows.map(toCommunication), COMMUNICATION_EXPANSIONS);
const communication = { name: 'Communication', schema: Communication } as const;

/** The operations of `/test_helpers`. */
export const testHelperOperations: AnyOperation[] = [
  defineOperation({
    method: 'get',
    path: '/test_helpers/clock',
    operationId: 'retrieveTestClock',
    tag,
    summary: "Retrieve the test tenant's clock",
    description: "`now` is the time the tenant's time-driven work is decided at: the real time plus `offset_seconds`.",
    access: { token: true, scope: 'debts:read' },
    testOnly: true,
    response: clock,
    handler: (i) => readTenantClock(i.ctx.db, i.tenantId),
  }),
  defineOperation({
    method: 'post',
    path: '/test_helpers/clock/advance',
    operationId: 'advanceTestClock',
    tag,
    summary: "Advance the test tenant's clock",
    description:
      "Send exactly one of `seconds` (at least 1) or `to` (a time not before the clock's `now`). The clock only moves forward, at most ten years ahead of real time; the worker then makes every change due by the tenant's new time (an instalment missed, a pause ended), and only this tenant's.",
    access: { token: true, scope: 'debts:write' },
    testOnly: true,
    body: { name: 'TestClockAdvance', schema: ClockAdvance },
    response: clock,
    handler: (i) => advanceTenantClock(i.ctx.db, i.tenantId, i.body),
  }),
  defineOperation({
    method: 'post',
    path: '/test_helpers/payments/{id}/fail',
    operationId: 'failTestPayment',
    tag,
    summary: 'Simulate a payment failing',
    description:
      'A `pending` payment fails at its provider: it moves to `failed` (`payment.failed`), as its `PATCH` with `status: failed` would. Any other status is 409.',
    access: { token: true, scope: 'debts:write' },
    testOnly: true,
    pathParams: { id: 'pay' },
    query: querySchema(showPayment.expand),
    response: { name: 'Payment', schema: Payment, status: 200 },
    errors: ['invalid_state_transition'],
    events: ['payment.failed'],
    handler: (i) => showPayment.one(i, failPayment(i.ctx.db, i.tenantId, i.params.id, actor(i))),
  }),
  defineOperation({
    method: 'post',
    path: '/test_helpers/debts/{id}/inbound',
    operationId: 'simulateTestInbound',
    tag,
    summary: "Simulate a reply from a debt's customer",
    description:
      "The customer answers, by email (default) or SMS: an inbound communication (`received`, `communication.received`) is recorded exactly as a real reply is (`POST /callbacks/email`, `/callbacks/sms/inbound`), linked to the customer's detail whose value is `from` (by default the detail the engine writes to by that method), and the debt moves to `contact_established` when its status allows; an SMS whose whole text is `STOP` also removes `sms` from the customer's accepted channels (`customer.updated`). Another mode's or no debt is 404.",
    access: { token: true, scope: 'communications:write' },
    testOnly: true,
    pathParams: { id: 'deb' },
    query: querySchema(showCommunication.expand),
    body: { name: 'TestInbound', schema: SimulatedReply, optional: true },
    response: { ...communication, status: 201 },
    events: ['communication.received', 'debt.contact_established', 'customer.updated'],
    handler: async (i) => showCommunication.one(i, simulateReply(i.ctx.db, i.tenantId, i.params.id, i.body ?? {}).then(toCommunication)),
  }),
  defineOperation({
    method: 'post',
    path: '/test_helpers/communications/{id}/bounce',
    operationId: 'simulateTestBounce',
    tag,
    summary: 'Simulate a bounce of an email or SMS',
    description:
      "A `sent` or `delivered` outbound email (or SMS) bounces at its provider, applied exactly as a provider's bounce is (`POST /callbacks/email`): the communication is `bounced` (`communication.failed`), its contact detail `undeliverable` (`customer_contact_detail.updated`), and when the customer has no usable detail left the debt moves to `contact_failed` (or `enriching`). A letter, an inbound communication or any other status is 409, nothing changed; another mode's or no communication is 404.",
    access: { token: true, scope: 'communications:write' },
    testOnly: true,
    pathParams: { id: 'com' },
    query: querySchema(showCommunication.expand),
    body: { name: 'TestBounce', schema: SimulatedBounce, optional: true },
    response: { ...communication, status: 200 },
    errors: ['invalid_state_transition'],
    events: ['communication.failed', 'customer_contact_detail.updated', 'debt.contact_failed', 'debt.enriching'],
    handler: async (i) => showCommunication.one(i, simulateBounce(i.ctx.db, i.tenantId, i.params.id, i.body ?? {}).then(toCommunication)),
  }),
];
