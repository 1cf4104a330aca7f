/**
 * Time to pay, breathing space, disclosure and contact preferences in Debian's Chromium (docs/api.md
 * section 18): each journey walked as people use it (question → check your answers → done) with
 * JavaScript on (every page, an error page included, with no axe-core violation) and off at
 * 320 px (no sideways scroll), the delay once with the keyboard only, and a disclosure in French.
 * Screenshots into `PORTAL_SHOTS_DIR` when set (e.g. /tmp/plantime-shots).
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import type { Page } from 'playwright-core';
import { seedParties, signedInTenant } from '../support/harness.js';
import { debtIn, type Parties } from '../support/debts.js';
import { inDays, payingDebt } from '../worker/support.js';
import {
  BIRTH_DATE,
  BROWSER_TEST_MS,
  browserRigPerFile,
  expectAccessible,
  expectHeading,
  expectNoSidewaysScroll,
  newPage,
  shoot,
  tabTo,
} from './browser-support.js';
import { createPortalLink } from '@dms/domain/portal';
import { testDb } from '../support/harness.js';

const rig = browserRigPerFile();
let me: Awaited<ReturnType<typeof signedInTenant>>;
let parties: Parties;

beforeAll(async () => {
  me = await signedInTenant();
  parties = await seedParties(me.api);
  await me.api.patch(`/customers/${parties.customerId}`, { date_of_birth: BIRTH_DATE }).expect(200);
});

/** What runs on each page: its short name (also the screenshot's). */
type Check = (page: Page, name: string) => Promise<void>;

/** A date as the en-GB pages show it in a choice. */
const shown = (day: string, locale = 'en-GB') =>
  new Intl.DateTimeFormat(locale, { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(day));

/** Opens a fresh link of the customer and verifies, ending on the debts list. */
async function signIn(page: Page): Promise<void> {
  const { token } = await createPortalLink(testDb(), { tenantId: me.tenant.tenantId, customerId: parties.customerId, ttlDays: 30 });
  await page.goto(`${rig.portal.base}/l/${token}`);
  await page.getByLabel('Your date of birth').fill(BIRTH_DATE);
  await page.getByRole('button', { name: 'Continue' }).click();
  await expectHeading(page, 'Your accounts');
}

/** Check your answers → confirm → done, checking both pages. */
async function checkAndConfirm(page: Page, check: Check, name: string, done: string, confirm = 'Confirm', checkTitle = 'Check your answers') {
  await expectHeading(page, checkTitle);
  await check(page, `${name}-check`);
  await page.getByRole('button', { name: confirm }).click();
  await expectHeading(page, done);
  await check(page, `${name}-done`);
}

/** From the debt page: the plan → delay the next payment (an error first when `withError`) → check → done. */
async function delay(page: Page, debtId: string, check: Check, withError = false): Promise<void> {
  await page.goto(`${rig.portal.base}/debts/${debtId}`);
  await page.getByRole('link', { name: 'Your payment plan' }).click();
  await expectHeading(page, 'Your payment plan');
  await check(page, 'plan');
  await page.getByRole('link', { name: 'Delay the next payment' }).click();
  await expectHeading(page, 'When would you like to make your next payment?');
  await check(page, 'delay');
  if (withError) {
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.locator('.error-summary').waitFor();
    await expect(page.getByRole('link', { name: 'Choose a date for your next payment' }).count()).resolves.toBe(1);
    await check(page, 'delay-error');
  }
  await page.getByLabel(shown(inDays(8))).check();
  await page.getByRole('button', { name: 'Continue' }).click();
  await checkAndConfirm(page, check, 'delay', 'Your next payment has been delayed');
  await expect(page.locator('main').innerText()).resolves.toContain(shown(inDays(8)));
}

/** From the plan page: change the day of future payments → check → done. */
async function changeDay(page: Page, debtId: string, check: Check): Promise<void> {
  await page.goto(`${rig.portal.base}/debts/${debtId}/plan`);
  await page.getByRole('link', { name: 'Change the day of future payments' }).click();
  await expectHeading(page, 'When would you like your next payment to be taken?');
  await check(page, 'day');
  await page.getByLabel(shown(inDays(3))).check();
  await page.getByRole('button', { name: 'Continue' }).click();
  await checkAndConfirm(page, check, 'day', 'The day of your payments has changed');
}

/** From the debt page: a standard breathing space → start date → reference → check → done. */
async function breathingSpace(page: Page, debtId: string, check: Check): Promise<void> {
  await page.goto(`${rig.portal.base}/debts/${debtId}`);
  await page.getByRole('link', { name: 'Tell us about a breathing space' }).click();
  await expectHeading(page, 'Which breathing space have you entered?');
  await check(page, 'breathing-kind');
  await page.getByLabel('A standard breathing space (60 days)').check();
  await page.getByRole('button', { name: 'Continue' }).click();
  await expectHeading(page, 'When did it start?');
  await check(page, 'breathing-start');
  await page.getByLabel('When did it start?').fill(inDays(-2));
  await page.getByRole('button', { name: 'Continue' }).click();
  await expectHeading(page, 'What is your adviser’s reference?');
  await check(page, 'breathing-reference');
  await page.getByLabel('What is your adviser’s reference?').fill('DRS-1001');
  await page.getByRole('button', { name: 'Continue' }).click();
  await checkAndConfirm(page, check, 'breathing', 'Your breathing space has been recorded');
}

/** From the debt page: something makes this harder (health) → words → check → done. */
async function disclose(page: Page, debtId: string, check: Check): Promise<void> {
  await page.goto(`${rig.portal.base}/debts/${debtId}`);
  await page.getByRole('link', { name: 'Tell us something makes this harder' }).click();
  await expectHeading(page, 'What is making this harder for you?');
  await check(page, 'disclose-kind');
  await page.getByLabel('My health').check();
  await page.getByRole('button', { name: 'Continue' }).click();
  await expectHeading(page, 'Tell us more, in your own words');
  await check(page, 'disclose-details');
  await page.getByLabel('Tell us more, in your own words').fill('I am in hospital until next month.');
  await page.getByRole('button', { name: 'Continue' }).click();
  await checkAndConfirm(page, check, 'disclose', 'Thank you for telling us');
}

const statusOf = async (debtId: string) => ((await testDb()('debts').where({ id: debtId }).first('status')) as { status: string }).status;
const datesOf = async (debtId: string) =>
  ((await testDb()('payment_plans').where({ debt_id: debtId }).first('schedule')) as { schedule: Array<{ due_on: string }> }).schedule.map((i) => i.due_on);

/** Delay, then change of day, on a fresh plan (signed in first), with `check` on each page; the schedule asserted. */
async function planJourneys(page: Page, check: Check, withError = false): Promise<void> {
  const planned = await payingDebt(me.api, parties, { start_on: inDays(1), grace_days: 2 });
  await signIn(page);
  await delay(page, planned.debtId, check, withError);
  expect(await datesOf(planned.debtId)).toEqual([inDays(8), inDays(15)]);
  await changeDay(page, planned.debtId, check);
  expect(await datesOf(planned.debtId)).toEqual([inDays(3), inDays(10)]);
}

/** A breathing space and a disclosure on fresh debts (signed in already), with `check` on each page; the statuses asserted. */
async function debtJourneys(page: Page, check: Check): Promise<void> {
  const protectedDebt = await debtIn(me.api, parties, 'prepared');
  await breathingSpace(page, protectedDebt, check);
  expect(await statusOf(protectedDebt)).toBe('legal_protection');
  const disclosed = await debtIn(me.api, parties, 'prepared');
  await disclose(page, disclosed, check);
  expect(await statusOf(disclosed)).toBe('follow_up_required');
}

/** Every page checked with axe-core and shot. */
const axeAndShoot: Check = async (p, name) => {
  await expectAccessible(p, name);
  await shoot(p, `plantime-${name}`);
};

describe('with JavaScript on, at 1280 px', () => {
  test(
    'delay and change of day: every page (the error page too) with no axe-core violation',
    async () => {
      const page = await newPage(rig.browser);
      await planJourneys(page, axeAndShoot, true);
      await page.context().close();
    },
    BROWSER_TEST_MS,
  );

  test(
    'breathing space, disclosure and contact preferences: every page with no axe-core violation',
    async () => {
      const page = await newPage(rig.browser);
      const check = axeAndShoot;
      await signIn(page);
      await debtJourneys(page, check);
      await page.getByRole('link', { name: 'Contact preferences' }).click();
      await expectHeading(page, 'How may we contact you?');
      await check(page, 'preferences-channels');
      await page.getByLabel('Email').check();
      await page.getByRole('button', { name: 'Continue' }).click();
      await expectHeading(page, 'When may we contact you?');
      await check(page, 'preferences-hours');
      await page.getByLabel('From').selectOption('10:00');
      await page.getByLabel('Until').selectOption('17:00');
      await page.getByRole('button', { name: 'Continue' }).click();
      await expectHeading(page, 'Which language would you like us to use?');
      await check(page, 'preferences-language');
      await page.getByLabel('English').check();
      await page.getByRole('button', { name: 'Continue' }).click();
      await checkAndConfirm(page, check, 'preferences', 'Your contact preferences have been saved');
      await page.context().close();
    },
    BROWSER_TEST_MS,
  );
});

describe('with JavaScript off, at 320 px', () => {
  test(
    'the four journeys work on plain HTML forms, and no page scrolls sideways',
    async () => {
      const page = await newPage(rig.browser, { javaScriptEnabled: false, viewport: { width: 320, height: 640 } });
      const check: Check = async (p, name) => {
        await expectNoSidewaysScroll(p, name);
        await shoot(p, `plantime-${name}`);
      };
      await planJourneys(page, check);
      await debtJourneys(page, check);
      await page.context().close();
    },
    BROWSER_TEST_MS,
  );
});

describe('keyboard only', () => {
  test(
    'delay the next payment from the plan page, with a visible focus at every stop',
    async () => {
      const { debtId } = await payingDebt(me.api, parties, { start_on: inDays(1), grace_days: 2 });
      const page = await newPage(rig.browser);
      await signIn(page);
      await page.goto(`${rig.portal.base}/debts/${debtId}/plan`);
      await tabTo(page, /^Delay the next payment$/, 30);
      await page.keyboard.press('Enter');
      await expectHeading(page, 'When would you like to make your next payment?');
      await tabTo(page, /^#due_on$/);
      // Arrow keys move through the dates and choose: the second one (two days later).
      await page.keyboard.press('ArrowDown');
      await tabTo(page, /^Continue$/);
      await page.keyboard.press('Enter');
      await expectHeading(page, 'Check your answers');
      await tabTo(page, /^Confirm$/);
      await page.keyboard.press('Enter');
      await expectHeading(page, 'Your next payment has been delayed');
      expect(await datesOf(debtId)).toEqual([inDays(3), inDays(10)]);
      await page.context().close();
    },
    BROWSER_TEST_MS,
  );
});

describe('in French (fr-FR)', () => {
  test(
    'a disclosure, every page in French with no axe-core violation',
    async () => {
      const debtId = await debtIn(me.api, parties, 'prepared');
      const page = await newPage(rig.browser);
      await signIn(page);
      await page.goto(`${rig.portal.base}/debts/${debtId}/disclose?lang=fr-FR`);
      const check: Check = async (p, name) => {
        await expect(p.locator('html').getAttribute('lang')).resolves.toBe('fr-FR');
        await expectAccessible(p, `fr-FR ${name}`);
        await shoot(p, `plantime-fr-FR-${name}`);
      };
      await expectHeading(page, 'Qu’est-ce qui rend cela plus difficile pour vous ?');
      await check(page, 'disclose-kind');
      await page.getByLabel('Un deuil').check();
      await page.getByRole('button', { name: 'Continuer' }).click();
      await expectHeading(page, 'Dites-nous en plus, avec vos mots');
      await check(page, 'disclose-details');
      await page.getByLabel('Dites-nous en plus, avec vos mots').fill('Mon père est décédé.');
      await page.getByRole('button', { name: 'Continuer' }).click();
      await checkAndConfirm(page, check, 'disclose', 'Merci de nous l’avoir dit', 'Confirmer', 'Vérifiez vos réponses');
      expect(await statusOf(debtId)).toBe('follow_up_required');
      await page.context().close();
    },
    BROWSER_TEST_MS,
  );
});
