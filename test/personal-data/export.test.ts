/**
 * `GET /customers/{id}/export` (docs/api.md section 20, "Export"): one JSON document with every
 * section of the field list, each holding this customer's objects alone; an operator's export is
 * recorded in the access log, which the document includes; another tenant's customer is 404.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { closeHarness, newOperator, operatorAs, seedParties, signedInTenant, tokenFor } from '../support/harness.js';
import { personWithHistory, type PersonFixture } from './fixture.js';

afterAll(closeHarness);

let acme: Awaited<ReturnType<typeof signedInTenant>>;
let globex: Awaited<ReturnType<typeof signedInTenant>>;
let person: PersonFixture;
let operatorId: string;
let operatorToken: string;

beforeAll(async () => {
  [acme, globex] = await Promise.all([signedInTenant(), signedInTenant()]);
  person = await personWithHistory(acme.api, acme.tenant.tenantId);
  await seedParties(acme.api); // a neighbour whose data must stay out
  const operator = await newOperator();
  operatorId = operator.clientId;
  operatorToken = await tokenFor(operator);
});

type Json = Record<string, any>;

describe('GET /customers/{id}/export', () => {
  test('holds every section of the field list, with this customer’s objects alone', async () => {
    const res = await acme.api.get(`/customers/${person.customerId}/export`).expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const doc = JSON.parse(res.text) as Json;
    expect(Object.keys(doc)).toEqual([
      'object',
      'livemode',
      'exported_at',
      'customer',
      'contact_details',
      'debts',
      'payments',
      'payment_plans',
      'income_and_expenditures',
      'communications',
      'events',
      'access_log',
    ]);
    expect(doc.object).toBe('customer_export');
    expect(doc.customer).toMatchObject({ id: person.customerId, object: 'customer', date_of_birth: person.values[7] });
    expect(doc.contact_details.map((d: Json) => d.type).sort()).toEqual(['address', 'email', 'mobile_number']);
    expect(doc.debts.map((d: Json) => d.id)).toEqual([person.debtId]);
    expect(doc.payments).toHaveLength(1);
    expect(doc.payments[0]).toMatchObject({ object: 'payment', amount: 2500 });
    expect(doc.payment_plans).toHaveLength(1);
    expect(doc.income_and_expenditures).toEqual([expect.objectContaining({ object: 'income_and_expenditure', livemode: true })]);
    expect(doc.communications.map((c: Json) => [c.id, c.body])).toEqual([[person.communicationId, person.values[8]]]);
    const types = doc.events.map((e: Json) => e.type);
    expect(types).toEqual(expect.arrayContaining(['customer.created', 'customer_contact_detail.created', 'debt.created', 'communication.received']));
    for (const e of doc.events) expect(JSON.stringify(e)).toMatch(new RegExp(`${person.customerId}|${person.debtId}|cde_|pay_|ppl_|com_`));
    expect(doc.access_log).toEqual([]);
  });

  test("an operator's export is recorded, and the next export lists it", async () => {
    await operatorAs(operatorToken, acme.tenant.tenantId).get(`/customers/${person.customerId}/export`).expect(200);
    const doc = JSON.parse((await acme.api.get(`/customers/${person.customerId}/export`).expect(200)).text) as Json;
    expect(doc.access_log).toEqual([expect.objectContaining({ actor: `operator:${operatorId}`, operation: 'exportCustomer', customer_id: person.customerId })]);
  });

  test("another tenant's customer is 404 with the error body, nothing streamed", async () => {
    const res = await globex.api.get(`/customers/${person.customerId}/export`).expect(404);
    expect(res.body.code).toBe('resource_missing');
  });
});
