/**
 * The portal's income and expenditure journey in Debian's Chromium (docs/api.md section 18
 * "Income and expenditure"): debt page → household → income (a negative amount first: the error
 * page) → fixed costs → flexible costs → debts → check your answers → confirmation, with
 * JavaScript on (320 px, no sideways scroll), off, by keyboard alone, and in French; every page,
 * the error page included, passes axe-core's WCAG 2.2 AA rules (with JavaScript on). Screenshots
 * `statement-<run>-<page>-<width>.png` go to PORTAL_SHOTS_DIR when it is set.
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
  focusedId,
  linkFor,
  newPage,
  seedCustomer,
  shoot,
  tabTo,
  type SeededCustomer,
} from './browser-support.js';

/** The words read and acted on, per language (written out apart from the catalogues). */
const WORDS = {
  'en-GB': {
    start: 'Tell us about your income and expenditure',
    household: 'Your household',
    adults: 'Adults in your household, including you',
    income: 'Your income',
    fixed: 'Your fixed costs',
    flexible: 'Your flexible costs',
    debts: 'Your payments to other debts',
    check: 'Check your answers',
    send: 'Send my income and expenditure',
    done: 'Thank you: we have your income and expenditure',
    continue: 'Continue',
    negative: 'The amount cannot be negative',
    converted: '£300.00 (Weekly), that is £1,300.00 a month',
    left: /you have £800\.00 left each month/,
  },
  'fr-FR': {
    start: 'Parlez-nous de vos revenus et de vos dépenses',
    household: 'Votre foyer',
    adults: 'Adultes du foyer, vous compris',
    income: 'Vos revenus',
    fixed: 'Vos charges fixes',
    flexible: 'Vos dépenses courantes',
    debts: 'Vos remboursements d’autres dettes',
    check: 'Vérifiez vos réponses',
    send: 'Envoyer mes revenus et dépenses',
    done: 'Merci : nous avons bien reçu vos revenus et dépenses',
    continue: 'Continuer',
    negative: 'Le montant ne peut pas être négatif',
    converted: /300,00\s£(GB)? \(Chaque semaine\), soit 1\s300,00\s£(GB)? par mois/,
    left: /il vous reste 800,00\s£(GB)? chaque mois/,
  },
} as const;
type Lang = keyof typeof WORDS;

const rig = browserRigPerFile();
let who: SeededCustomer;

beforeAll(async () => {
  who = await seedCustomer();
});

/** Axe on the page and its screenshots `statement-<run>-<name>` (`shoot`: when PORTAL_SHOTS_DIR is set). */
async function look(page: Page, run: string, name: string): Promise<void> {
  await expectAccessible(page, `${run} ${name}`);
  await shoot(page, `statement-${run}-${name}`);
}

/** Verifies `who` in a fresh page and opens their debt page (in `lang`). */
async function openDebt(page: Page, lang: Lang): Promise<void> {
  await page.goto(`${rig.portal.base}/l/${(await linkFor(who)).token}`);
  await page.getByLabel('Your date of birth').fill(BIRTH_DATE);
  await page.getByRole('button', { name: 'Continue' }).click();
  await expectHeading(page, 'Your accounts');
  await page.goto(`${rig.portal.base}/debts/${who.debtId}?lang=${lang}`);
}

/** Fills every amount field of the page with 0 (monthly), then `amounts` (`#id` → [amount, frequency]). */
async function fillAmounts(page: Page, amounts: Record<string, [string, string]> = {}): Promise<void> {
  for (const input of await page.locator('input[inputmode=decimal]').all()) await input.fill('0');
  for (const [id, [amount, frequency]] of Object.entries(amounts)) {
    await page.locator(`#${id}`).fill(amount);
    await page.locator(`#${id}-frequency`).selectOption(frequency);
  }
}

/** Walks the whole journey by pointer and typing, checking each page (`run` names the screenshots). */
async function walk(page: Page, lang: Lang, run: string, width?: number): Promise<void> {
  const w = WORDS[lang];
  const next = () => page.getByRole('button', { name: w.continue }).click();
  // Without JavaScript axe cannot run: the page is only photographed.
  const checkPage = async (name: string) => {
    if (run === 'nojs') return void (await shoot(page, `statement-${run}-${name}`));
    await look(page, run, name);
    if (width) await expectNoSidewaysScroll(page, `${run} ${name}`);
  };
  await openDebt(page, lang);
  await page.getByRole('link', { name: w.start }).click();
  await expectHeading(page, w.household);
  await checkPage('household');
  await page.getByLabel(w.adults).fill('1');
  await page.locator('#children').fill('0');
  await page.locator('#vehicles').fill('0');
  await next();
  await expectHeading(page, w.income);
  await fillAmounts(page, { 'income-earnings': ['-5', 'weekly'] });
  await next();
  await page.locator('.error-summary').waitFor();
  await expect(page.locator('#income-earnings-error').innerText()).resolves.toBe(w.negative);
  await checkPage('income-error');
  await page.getByRole('link', { name: w.negative }).click();
  if (run === 'js') await expect(focusedId(page)).resolves.toMatchObject({ id: 'income-earnings' });
  await fillAmounts(page, { 'income-earnings': ['300.00', 'weekly'] });
  await checkPage('income');
  await next();
  await expectHeading(page, w.fixed);
  await fillAmounts(page, { 'fixed_costs-housing': ['500', 'monthly'] });
  await checkPage('fixed-costs');
  await next();
  await expectHeading(page, w.flexible);
  await fillAmounts(page);
  await checkPage('flexible-costs');
  await next();
  await expectHeading(page, w.debts);
  await fillAmounts(page);
  await checkPage('debts');
  await next();
  await expectHeading(page, w.check);
  await expect(page.locator('main').innerText()).resolves.toMatch(w.converted);
  await checkPage('check');
  await page.getByRole('button', { name: w.send }).click();
  await expectHeading(page, w.done);
  await expect(page.locator('main').innerText()).resolves.toMatch(w.left);
  await checkPage('done');
}

/** Rows stored for the seeded debt so far. */
const stored = async () => Number(((await testDb()('income_and_expenditures').where({ debt_id: who.debtId }).count('* as n').first()) as { n: string }).n);

describe('the income and expenditure journey in Chromium', () => {
  test(
    'with JavaScript on at 320 px: every page and the error page pass axe, none scrolls sideways; the summary link focuses the field',
    async () => {
      const before = await stored();
      const page = await newPage(rig.browser, { viewport: { width: 320, height: 640 } });
      await walk(page, 'en-GB', 'js', 320);
      expect(await stored()).toBe(before + 1);
      await page.context().close();
    },
    BROWSER_TEST_MS,
  );

  test(
    'with JavaScript off: the same journey works on plain forms and links',
    async () => {
      const page = await newPage(rig.browser, { javaScriptEnabled: false });
      await walk(page, 'en-GB', 'nojs');
      await page.context().close();
    },
    BROWSER_TEST_MS,
  );

  test(
    'in French: every page in French, with no axe-core violation',
    async () => {
      const page = await newPage(rig.browser);
      await walk(page, 'fr-FR', 'fr');
      await expect(page.locator('html').getAttribute('lang')).resolves.toBe('fr-FR');
      await page.context().close();
    },
    BROWSER_TEST_MS,
  );

  test(
    'by keyboard alone: Tab, typing and Enter reach the confirmation',
    async () => {
      const before = await stored();
      const page = await newPage(rig.browser);
      await openDebt(page, 'en-GB');
      const w = WORDS['en-GB'];
      await tabTo(page, new RegExp(w.start), 30);
      await page.keyboard.press('Enter');
      await expectHeading(page, w.household);
      await tabTo(page, /^#adults$/);
      for (const n of ['2', '1', '0']) {
        await page.keyboard.type(n);
        await page.keyboard.press('Tab');
      }
      await page.keyboard.press('Enter');
      for (const heading of [w.income, w.fixed, w.flexible, w.debts]) {
        await expectHeading(page, heading);
        const first = await page.locator('input[inputmode=decimal]').first().getAttribute('id');
        await tabTo(page, new RegExp(`^#${first}$`));
        const count = await page.locator('input[inputmode=decimal]').count();
        for (let i = 0; i < count; i++) {
          await page.keyboard.type(i === 0 && heading === w.income ? '50' : '0');
          // The period stays monthly: Tab past it to the next amount.
          if (i < count - 1) await page.keyboard.press('Tab');
          if (i < count - 1) await page.keyboard.press('Tab');
        }
        await page.keyboard.press('Enter');
      }
      await expectHeading(page, w.check);
      await tabTo(page, new RegExp(w.send), 40);
      await page.keyboard.press('Enter');
      await expectHeading(page, w.done);
      await expect(page.locator('main').innerText()).resolves.toMatch(/you have £50\.00 left each month/);
      expect(await stored()).toBe(before + 1);
      await page.context().close();
    },
    BROWSER_TEST_MS,
  );
});
