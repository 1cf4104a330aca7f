/**
 * The portal's languages (docs/api.md section 18): both catalogues hold the same keys, every key a
 * view asks for exists, and a page is French when asked by `?lang=fr-FR` (kept for the session),
 * by `Accept-Language`, or by the customer's own `preferred_locale` once verified, with money
 * formatted by `Intl` in that language.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import { createPortalLink } from '@dms/domain/portal';
import { LINE_ITEM_KINDS } from '@dms/domain/line-items';
import { REPO_ROOT } from '@dms/tools/processes';
import { closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { createDebt } from '../support/debts.js';
import { startPortal, type RunningPortal } from './steps-support.js';

const PORTAL = join(REPO_ROOT, 'services', 'portal');
const catalogue = (lng: string) =>
  Object.fromEntries(
    readdirSync(join(PORTAL, 'locales', lng)).flatMap((f) =>
      Object.keys(JSON.parse(readFileSync(join(PORTAL, 'locales', lng, f), 'utf8')) as object).map((k) => [`${f.replace('.json', '')}:${k}`, true]),
    ),
  );

describe('catalogues', () => {
  test('en-GB and fr-FR hold the same keys', () => {
    expect(Object.keys(catalogue('fr-FR')).sort()).toEqual(Object.keys(catalogue('en-GB')).sort());
  });

  test('every key a view or route names exists', () => {
    const keys = catalogue('en-GB');
    const sources = [
      ...readdirSync(join(PORTAL, 'views')).map((f) => readFileSync(join(PORTAL, 'views', f), 'utf8')),
      ...readdirSync(join(PORTAL, 'src', 'routes')).map((f) => readFileSync(join(PORTAL, 'src', 'routes', f), 'utf8')),
    ].join('\n');
    const named = [...sources.matchAll(/'([a-z_]+:[a-z_.0-9]+|[a-z_]+(?:\.[a-z_]+)*)' \| t\b/g)].map((m) => (m[1]!.includes(':') ? m[1]! : `common:${m[1]}`));
    named.push(...[...sources.matchAll(/message: '([a-z_]+:[a-z_.]+)'/g)].map((m) => m[1]!));
    expect(named.length).toBeGreaterThan(20);
    expect(named.filter((k) => !keys[k])).toEqual([]);
  });

  test('every line-item kind has its name in both languages', () => {
    for (const lng of ['en-GB', 'fr-FR']) {
      const keys = catalogue(lng);
      expect(LINE_ITEM_KINDS.filter((k) => !keys[`debts:kind.${k}`])).toEqual([]);
    }
  });
});

describe('pages', () => {
  let portal: RunningPortal;
  let base: string;
  let tenantId: string;
  let customerId: string;

  beforeAll(async () => {
    const me = await signedInTenant();
    tenantId = me.tenant.tenantId;
    const parties = await seedParties(me.api);
    customerId = (
      await me.api
        .post('/customers', { kind: 'individual', first_name: 'Amélie', last_name: 'Roux', date_of_birth: '1975-09-14', preferred_locale: 'fr-FR' })
        .expect(201)
    ).body.id;
    await createDebt(me.api, { ...parties, customerId }, { account_number: 'FR-1' });
    portal = await startPortal();
    base = portal.base;
  });

  afterAll(async () => {
    await portal?.stop();
    await closeHarness();
  });

  test('?lang=fr-FR makes the page French and stays for the session; English by default', async () => {
    const english = await request(base).get('/nothing-here').expect(404);
    expect(english.text).toContain('<html lang="en-GB">');
    expect(english.text).toContain('Page not found');
    const agent = request.agent(base);
    const { token } = await createPortalLink(testDb(), { tenantId, customerId, ttlDays: 1 });
    await agent.get(`/l/${token}?lang=fr-FR`).expect(303);
    const verify = await agent.get('/verify').expect(200);
    expect(verify.text).toContain('<html lang="fr-FR">');
    expect(verify.text).toContain('Confirmez votre identité');
    expect(verify.text).toContain('hreflang="en-GB"');
  });

  test('Accept-Language: fr gives French', async () => {
    const res = await request(base).get('/nothing-here').set('Accept-Language', 'fr-CA,fr;q=0.9').expect(404);
    expect(res.text).toContain('Page introuvable');
  });

  test("the customer's own language after verification, money in French", async () => {
    const agent = request.agent(base);
    const { token } = await createPortalLink(testDb(), { tenantId, customerId, ttlDays: 1 });
    await agent.get(`/l/${token}`).expect(303);
    const form = await agent.get('/verify').expect(200);
    expect(form.text).toContain('Confirm it is you');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)![1]!;
    await agent.post('/verify').type('form').send({ _csrf: csrf, answer: '1975-09-14' }).expect(303);
    const list = await agent.get('/debts').expect(200);
    expect(list.text).toContain('Vos comptes');
    // Intl's French currency format: the amount, a narrow no-break space, then the symbol.
    expect(list.text).toMatch(/\d,\d{2}\s£/u);
    const debtId = /href="\/debts\/([^"/]+)"/.exec(list.text)![1]!;
    const page = await agent.get(`/debts/${debtId}`).expect(200);
    expect(page.text).toContain('<td>Montant dû</td>');
    expect(page.text).not.toMatch(/<td>debt<\/td>/);
  });
});
