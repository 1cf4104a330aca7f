/**
 * The portal's brand (docs/api.md section 18): the organisation's `customer_facing_name` heads the
 * page and its `logo` is shown as an image whose alt text names the organisation, only when the
 * logo is an https address; an http logo or none shows no image. Every page about one of the
 * customer's debts carries it (one layout), the debts list and another customer's debt do not.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import { createPortalLink } from '@dms/domain/portal';
import { closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { createDebt } from '../support/debts.js';
import { startPortal, type RunningPortal } from './steps-support.js';

describe('brand', () => {
  let portal: RunningPortal;
  let base: string;
  let tenantId: string;
  let customerId: string;
  let branded: string;
  let plain: string;

  beforeAll(async () => {
    const me = await signedInTenant();
    tenantId = me.tenant.tenantId;
    const org = async (body: Record<string, unknown>) => (await me.api.post('/organisations', body).expect(201)).body.id as string;
    const good = await org({ name: 'Northwind Utilities Ltd', customer_facing_name: 'Northwind', logo: 'https://cdn.example.com/northwind.png' });
    const insecure = await org({ name: 'Contoso', logo: 'http://cdn.example.com/contoso.png' });
    customerId = (await me.api.post('/customers', { kind: 'individual', first_name: 'Grace', last_name: 'Hopper', date_of_birth: '1906-12-09' }).expect(201))
      .body.id;
    plain = (await createDebt(me.api, { organisationId: insecure, customerId })).id;
    branded = (await createDebt(me.api, { organisationId: good, customerId })).id;
    portal = await startPortal();
    base = portal.base;
  });

  afterAll(async () => {
    await portal?.stop();
    await closeHarness();
  });

  test('an https logo and the customer-facing name on the verify and debt pages; an http logo is not shown', async () => {
    const agent = request.agent(base);
    const { token } = await createPortalLink(testDb(), { tenantId, customerId, debtId: branded, ttlDays: 1 });
    await agent.get(`/l/${token}`).expect(303);
    const form = await agent.get('/verify').expect(200);
    expect(form.text).toContain('<img class="logo" src="https://cdn.example.com/northwind.png" alt="Northwind logo">');
    expect(form.text).not.toContain('Northwind Utilities Ltd');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)![1]!;
    await agent.post('/verify').type('form').send({ _csrf: csrf, answer: '1906-12-09' }).expect(303);
    const mine = await agent.get(`/debts/${branded}`).expect(200);
    expect(mine.text).toContain('alt="Northwind logo"');
    const other = await agent.get(`/debts/${plain}`).expect(200);
    expect(other.text).toContain('<span class="brand">Contoso</span>');
    expect(other.text).not.toContain('<img');
    const list = await agent.get('/debts').expect(200);
    expect(list.text).not.toContain('<img');
    expect(list.text).toContain('<span class="brand">Your account</span>');
  });

  test("every page of a debt's journeys is headed by its organisation; another customer's debt is not", async () => {
    const agent = request.agent(base);
    const { token } = await createPortalLink(testDb(), { tenantId, customerId, debtId: plain, ttlDays: 1 });
    await agent.get(`/l/${token}`).expect(303);
    const csrf = /name="_csrf" value="([^"]+)"/.exec((await agent.get('/verify').expect(200)).text)![1]!;
    await agent.post('/verify').type('form').send({ _csrf: csrf, answer: '1906-12-09' }).expect(303);
    /** The status of the page `path` leads to (after one redirect; 409 where the debt refuses the journey) and the brand heading it. */
    const brandOf = async (path: string) => {
      const page = await agent.get(path).redirects(1);
      return `${page.status} ${/<span class="brand">(.*?)<\/span>/.exec(page.text)?.[1]}`;
    };
    for (const page of ['pay', 'offers', 'propose', 'statement', 'dispute', 'question', 'plan']) {
      await expect(brandOf(`/debts/${branded}/${page}`)).resolves.toMatch(/^(200|409) <img .* alt="Northwind logo"> Northwind$/);
      await expect(brandOf(`/debts/${plain}/${page}`)).resolves.toMatch(/^(200|409) Contoso$/);
    }
    const other = await signedInTenant();
    const stranger = (await createDebt(other.api, await seedParties(other.api))).id as string;
    await expect(brandOf(`/debts/${stranger}/pay`)).resolves.toBe('404 Your account');
  });
});
