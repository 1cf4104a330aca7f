/**
 * Choosing a plan on the portal in Debian's Chromium (docs/api.md section 18 "Plans with a saved
 * card"), with JavaScript off and on, at 320 px (no sideways scroll): debt → ways to pay → a plan
 * → its first date → check your answers → the local checkout saving 4242 → the plan set up, each
 * page with no axe-core violation (WCAG 2.2 A and AA), the error summary of a bad date included;
 * then the page to stop the card payments.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import type { Page } from 'playwright-core';
import { testDb } from '../support/harness.js';
import {
  BIRTH_DATE,
  BROWSER_TEST_MS,
  browserRigPerFile,
  expectAccessible,
  expectNoSidewaysScroll,
  freshDebt,
  linkFor,
  newPage,
  offeringCustomer,
  shoot,
  type OfferingCustomer,
  type SeededCustomer,
} from './browser-support.js';

const rig = browserRigPerFile();
let customer: OfferingCustomer;
/** Whether the current journey runs with JavaScript, and the pages it went through. */
let scripts = true;
let seen: string[] = [];

beforeAll(async () => {
  customer = await offeringCustomer();
});

/** Waits for the page whose `h1` reads `text` (a locator: works with JavaScript off too). */
const heading = (page: Page, text: string) => page.locator('h1', { hasText: text }).waitFor({ timeout: 10_000 });

/** Checks the page (axe, no sideways scroll: both run scripts, so with JavaScript on only) and keeps its screenshot. */
async function checkPage(page: Page, name: string): Promise<void> {
  seen.push(name);
  if (!scripts) return;
  await expectAccessible(page, name);
  await expectNoSidewaysScroll(page, name);
  await shoot(page, name);
}

/** Walks the plan journey, checking each page. */
async function choosePlan(page: Page, who: SeededCustomer, label: string): Promise<void> {
  await page.goto(`${rig.portal.base}/l/${(await linkFor(who)).token}`);
  await page.getByLabel('Your date of birth').fill(BIRTH_DATE);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.goto(`${rig.portal.base}/debts/${who.debtId}`);
  await page.getByRole('link', { name: 'See ways to pay, including a plan' }).click();
  await heading(page, 'Ways to pay');
  await checkPage(page, `${label}-offers`);
  await page.getByLabel('2 monthly payments of £37.50').check();
  await page.getByRole('button', { name: 'Continue' }).click();
  await heading(page, 'When do you want to make the first payment?');
  await checkPage(page, `${label}-date`);
  await page.getByLabel('When do you want to make the first payment?').fill('2020-01-01');
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.locator('.error-summary').waitFor();
  await checkPage(page, `${label}-date-error`);
  const today = new Date().toISOString().slice(0, 10);
  await page.getByLabel('When do you want to make the first payment?').fill(today);
  await page.getByRole('button', { name: 'Continue' }).click();
  await heading(page, 'Check your answers');
  await checkPage(page, `${label}-check`);
  await page.getByRole('button', { name: 'Continue to save your card' }).click();
  await heading(page, 'Card number');
  await checkPage(page, `${label}-card`);
  await page.getByLabel('Card number').fill('4242 4242 4242 4242');
  await page.getByRole('button', { name: 'Save card' }).click();
  await heading(page, 'Your plan is set up');
  await checkPage(page, `${label}-done`);
  await page.goto(`${rig.portal.base}/debts/${who.debtId}/plan/authority/cancel`);
  await heading(page, 'Stop card payments for your plan');
  await checkPage(page, `${label}-authority`);
}

describe('choosing a plan', () => {
  for (const javaScriptEnabled of [false, true]) {
    test(
      javaScriptEnabled
        ? 'with JavaScript on at 320 px: every page without an axe-core violation or sideways scroll, the plan made with the saved card'
        : 'with JavaScript off at 320 px: the journey works on plain HTML forms, the plan made with the saved card',
      async () => {
        const who = await freshDebt(customer);
        scripts = javaScriptEnabled;
        seen = [];
        const page = await newPage(rig.browser, { javaScriptEnabled, viewport: { width: 320, height: 640 } });
        await choosePlan(page, who, `plan-js-${javaScriptEnabled ? 'on' : 'off'}`);
        const plan = await testDb()('payment_plans').where({ debt_id: who.debtId }).first();
        expect(plan).toMatchObject({ status: 'active', frequency: 'monthly', payment_method_label: 'card ending 4242' });
        expect(seen.map((name) => name.replace(/^plan-js-o(n|ff)-/, ''))).toEqual(['offers', 'date', 'date-error', 'check', 'card', 'done', 'authority']);
        await page.context().close();
      },
      BROWSER_TEST_MS,
    );
  }
});
