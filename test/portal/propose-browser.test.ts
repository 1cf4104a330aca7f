/**
 * The propose pages in a real browser (docs/api.md section 18 "Proposals"): headless Chromium with
 * JavaScript on at 1280 px (plain forms without JavaScript are test/portal/propose.test.ts); the terms form, its error summary (focusable links to
 * the fields), check your answers and the sent page each pass axe-core's WCAG 2.2 AA rules and do
 * not scroll sideways; the proposal is recorded. The statement is given through the domain.
 */
import { expect, test } from '@jest/globals';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { createIncomeAndExpenditure } from '@dms/domain/income-and-expenditure';
import { testDb } from '../support/harness.js';
import { WORDS } from './browser-journeys.js';
import { statementBody } from '../circumstances/support.js';
import {
  BIRTH_DATE,
  BROWSER_TEST_MS,
  browserRigPerFile,
  expectAccessible,
  expectNoSidewaysScroll,
  linkFor,
  newPage,
  seedCustomer,
  shoot,
} from './browser-support.js';

const rig = browserRigPerFile();

/** Waits for the page whose main heading is `name`. */
const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name }).waitFor();

/** Checks a page: axe, no sideways scroll, a screenshot. */
async function check(page: Page, name: string): Promise<void> {
  await expectAccessible(page, name);
  await expectNoSidewaysScroll(page, name);
  await shoot(page, `propose-${name}`);
}

async function walk(options: BrowserContextOptions, label: string): Promise<void> {
  const who = await seedCustomer();
  await createIncomeAndExpenditure(testDb(), who.tenantId, who.debtId, statementBody(), `customer:${who.customerId}`);
  const page = await newPage(rig.browser, options);
  try {
    const { token } = await linkFor(who);
    await page.goto(`${rig.portal.base}/l/${token}`);
    await page.fill('#answer', BIRTH_DATE);
    await page.click('button[type=submit]');
    await heading(page, WORDS['en-GB'].debts);
    await page.goto(`${rig.portal.base}/debts/${who.debtId}/propose`);
    await check(page, `${label}-form`);
    await page.click('form[action$="/propose"] button');
    await page.locator('a[href="#amount"]').waitFor();
    await check(page, `${label}-errors`);
    await page.fill('#amount', '5.00');
    await page.check('#frequency');
    await page.fill('#start_on', new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10));
    await page.click('form[action$="/propose"] button');
    await heading(page, 'Check your proposal');
    await check(page, `${label}-check`);
    await page.click('form[action$="/propose/check"] button');
    await heading(page, 'Proposal sent');
    await check(page, `${label}-sent`);
    expect(await testDb()('proposals').where({ debt_id: who.debtId }).select('status')).toEqual([{ status: 'pending' }]);
  } finally {
    await page.context().close();
  }
}

test('with JavaScript on at 1280 px, the propose pages work and pass axe', () => walk({}, 'js-1280'), BROWSER_TEST_MS);
