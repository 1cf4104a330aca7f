/**
 * Paying, paying later and writing to the organisation on the portal in Debian's Chromium
 * (docs/api.md section 18 "Payments", "Plans with a saved card", "Disputes and questions"), with
 * JavaScript on at 320 px: each page, the error summaries included, passes axe-core's WCAG 2.2 A
 * and AA rules and does not scroll sideways, and is photographed (`shoot`) for
 * docs/portal-screenshots.md. The outcome of each journey is read back from the database.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import type { Page } from 'playwright-core';
import { testDb } from '../support/harness.js';
import {
  BIRTH_DATE,
  BROWSER_TEST_MS,
  browserRigPerFile,
  expectAccessible,
  expectHeading,
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

beforeAll(async () => {
  customer = await offeringCustomer();
});

/** Axe, no sideways scroll, then the page's screenshots as `name`. */
async function check(page: Page, name: string): Promise<void> {
  await expectAccessible(page, name);
  await expectNoSidewaysScroll(page, name);
  await shoot(page, name);
}

/** A page at 320 px with JavaScript on, verified through a new link of `who`, on the debt's page. */
async function openDebt(who: SeededCustomer): Promise<Page> {
  const page = await newPage(rig.browser, { viewport: { width: 320, height: 640 } });
  await page.goto(`${rig.portal.base}/l/${(await linkFor(who)).token}`);
  await page.getByLabel('Your date of birth').fill(BIRTH_DATE);
  await page.getByRole('button', { name: 'Continue' }).click();
  await expectHeading(page, 'Your accounts');
  await page.goto(`${rig.portal.base}/debts/${who.debtId}`);
  await expectHeading(page, 'Your account with Northwind Utilities');
  return page;
}

/** Clicks the button named `name` and waits for the page it sends. */
async function send(page: Page, name: string | RegExp): Promise<void> {
  const loaded = page.waitForEvent('load');
  await page.getByRole('button', { name }).click();
  await loaded;
}

describe('in Chromium at 320 px', () => {
  test(
    'paying the balance: the amount (and its error), the check, the local checkout, the payment received, then nothing to pay',
    async () => {
      const who = await freshDebt(customer);
      const page = await openDebt(who);
      await page.getByRole('link', { name: 'Make a payment' }).click();
      await expectHeading(page, 'How much do you want to pay?');
      await check(page, 'pay-amount');
      await send(page, 'Continue');
      await page.getByRole('link', { name: 'Enter the amount you want to pay, for example 25.00' }).waitFor();
      await check(page, 'pay-amount-error');
      await page.getByLabel('How much do you want to pay?').fill('75.00');
      await send(page, 'Continue');
      await expectHeading(page, 'Check your payment');
      await check(page, 'pay-check');
      await send(page, 'Continue to payment');
      await expectHeading(page, 'Card number');
      await check(page, 'pay-checkout');
      await page.getByLabel('Card number').fill('4242 4242 4242 4242');
      await send(page, 'Pay £75.00');
      await expectHeading(page, 'Payment received');
      await check(page, 'pay-received');
      expect(await testDb()('payments').where({ debt_id: who.debtId }).select('status', 'amount')).toEqual([{ status: 'succeeded', amount: 7500 }]);
      await page.goto(`${rig.portal.base}/debts/${who.debtId}/pay`);
      await expectHeading(page, 'There is nothing to pay on this account');
      await check(page, 'pay-nothing-due');
      await page.context().close();
    },
    BROWSER_TEST_MS,
  );

  test(
    'paying later: the offer, the date, the check, the card saved, the payment arranged',
    async () => {
      const who = await freshDebt(customer);
      const page = await openDebt(who);
      await page.getByRole('link', { name: 'See ways to pay, including a plan' }).click();
      await expectHeading(page, 'Ways to pay');
      await page.getByLabel(/^Pay £75\.00 in one payment by /).check();
      await send(page, 'Continue');
      await expectHeading(page, 'On what date will you pay?');
      await check(page, 'later-date');
      await page.getByLabel('On what date will you pay?').fill(new Date().toISOString().slice(0, 10));
      await send(page, 'Continue');
      await expectHeading(page, 'Check your answers');
      await check(page, 'later-check');
      await send(page, 'Continue to save your card');
      await expectHeading(page, 'Card number');
      await page.getByLabel('Card number').fill('4242 4242 4242 4242');
      await send(page, 'Save card');
      await expectHeading(page, 'Your payment is arranged');
      await check(page, 'later-done');
      expect(await testDb()('payment_promises').where({ debt_id: who.debtId }).select('status', 'amount')).toEqual([{ status: 'active', amount: 7500 }]);
      await page.context().close();
    },
    BROWSER_TEST_MS,
  );

  test(
    'disputing the debt: the form (and its errors), the check, the dispute sent',
    async () => {
      const who = await freshDebt(customer);
      const page = await openDebt(who);
      await page.getByRole('link', { name: 'Dispute this debt' }).click();
      await expectHeading(page, 'Dispute this debt');
      await check(page, 'dispute-form');
      await send(page, 'Continue');
      await page.getByRole('link', { name: 'Choose a reason' }).waitFor();
      await check(page, 'dispute-form-error');
      await page.getByLabel('The amount is wrong').check();
      await page.getByLabel('Tell us more').fill('I was charged twice for March.');
      await send(page, 'Continue');
      await expectHeading(page, 'Check your answers');
      await check(page, 'dispute-check');
      await send(page, 'Send');
      await expectHeading(page, 'Your dispute has been sent');
      await check(page, 'dispute-sent');
      expect(await testDb()('debts').where({ id: who.debtId }).first('status')).toEqual({ status: 'disputed' });
      await page.context().close();
    },
    BROWSER_TEST_MS,
  );
});
