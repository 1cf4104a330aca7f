/**
 * `/docs`: the API reference page, rendered by Swagger UI from `/openapi.json`, with every asset
 * served by the API itself under a self-only Content-Security-Policy. Opened in headless Chromium
 * (Debian's `chromium` package, installed by scripts/ensure-chromium.sh) through playwright-core.
 */
import { existsSync } from 'node:fs';
import request from 'supertest';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { API_URL } from '../support/harness.js';

const CHROMIUM = '/usr/bin/chromium';
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run scripts/ensure-chromium.sh (installs Debian's chromium package).`);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
});
afterAll(async () => {
  await browser?.close();
});

describe('/docs', () => {
  test('is served without a token, with a Content-Security-Policy that allows only the API itself', async () => {
    const res = await request(API_URL).get('/docs').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const csp = res.headers['content-security-policy'];
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("img-src 'self' data:");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:|\*/);
    // No CDN: every script and stylesheet is a path on this server.
    for (const [, url] of res.text.matchAll(/(?:src|href)="([^"]+)"/g)) expect(url).toMatch(/^\/docs\//);
  });

  test('serves only the Swagger UI files the page needs', async () => {
    await request(API_URL)
      .get('/docs/assets/swagger-ui-bundle.js')
      .expect(200)
      .expect('content-type', /javascript/);
    await request(API_URL).get('/docs/assets/swagger-ui.css').expect(200);
    const sample = await request(API_URL).get('/docs/assets/swagger-initializer.js').expect(404);
    expect(sample.body.code).toBe('route_not_found');
  });

  test('renders the reference in headless Chromium, listing the debt operations, with no request elsewhere and no CSP violation', async () => {
    const page = await browser.newPage();
    const foreign: string[] = [];
    const problems: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(API_URL)) foreign.push(r.url());
    });
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));

    await page.goto(`${API_URL}/docs`);
    await page
      .getByRole('heading', { name: /Debt Management Service API/ })
      .first()
      .waitFor({ timeout: 60_000 });
    // Every tag is listed; tags start collapsed (init.js), so the test opens those it checks.
    await page.locator('.opblock-tag', { hasText: 'Debts' }).first().waitFor();
    await expect(page.locator('.opblock-tag').count()).resolves.toBeGreaterThanOrEqual(20);
    for (const tag of ['Debts', 'Debt lifecycle', 'Payments']) await page.locator(`.opblock-tag[data-tag="${tag}"]`).click();
    await page.locator('#operations-Payments-createPayment').waitFor();
    await page.locator('#operations-Debts-createDebt').waitFor();

    const operations = await page
      .locator('.opblock-summary')
      .evaluateAll((els) =>
        els.map((el) => `${el.querySelector('.opblock-summary-method')?.textContent} ${el.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`),
      );
    for (const op of [
      'GET /debts',
      'POST /debts',
      'GET /debts/search',
      'GET /debts/{id}',
      'PATCH /debts/{id}',
      'DELETE /debts/{id}',
      'POST /debts/{id}/ready',
      'POST /debts/{debtId}/payments',
    ]) {
      expect(operations).toContain(op);
    }
    await expect(page.locator('.opblock-tag', { hasText: 'Debt lifecycle' }).count()).resolves.toBe(1);

    // Expanding an operation shows its generated details (scope and Idempotency-Key).
    await page.locator('#operations-Debts-createDebt .opblock-summary').click();
    await page.locator('#operations-Debts-createDebt').getByText('Idempotency-Key').first().waitFor();

    // Swagger UI reports problems with the document (an unsupported keyword, a broken $ref) in
    // red error boxes at the top of the page rather than in the console: there must be none.
    const errorBoxes = await page.locator('.swagger-ui .errors-wrapper, .swagger-ui .errors, .swagger-ui .error-wrapper').allInnerTexts();
    expect(errorBoxes).toEqual([]);

    expect(foreign).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });
});
