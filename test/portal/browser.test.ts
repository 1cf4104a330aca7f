/**
 * The customer portal in Debian's Chromium (issue 31: pages are tested as people use them): the
 * journey link → verification → debts → debt → sign out with JavaScript on and off, at 1280 px and
 * 320 px (no sideways scroll), each page passing axe-core's WCAG 2.2 AA rules, the error and
 * dead-end pages included. Keyboard-only use is test/portal/browser-keyboard.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { closeHarness, testDb } from '../support/harness.js';
import {
  BIRTH_DATE,
  expectAccessible,
  expectNoSidewaysScroll,
  focusedId,
  launchChromium,
  linkFor,
  newPage,
  seedCustomer,
  shoot,
  startPortal,
  walkJourney,
  type RunningPortal,
  type SeededCustomer,
  BROWSER_TEST_MS,
  expectHeading,
} from './browser-support.js';

let browser: Browser;
let portal: RunningPortal;
let who: SeededCustomer;

beforeAll(async () => {
  [browser, portal, who] = await Promise.all([launchChromium(), startPortal(), seedCustomer()]);
});

afterAll(async () => {
  await browser?.close();
  await portal?.close();
  await closeHarness();
});

/** Each page of the dead ends at the page's current width: heading, axe, screenshot. */
async function deadEnds(page: Page, check: (page: Page, name: string) => Promise<void>): Promise<void> {
  await page.goto(`${portal.base}/l/${'A'.repeat(43)}`);
  await expectHeading(page, 'This link is not valid');
  await check(page, 'link-unknown');
  const gone = await linkFor(who);
  await testDb()('portal_links').where({ id: gone.id }).update({ revoked_at: new Date() });
  await page.goto(`${portal.base}/l/${gone.token}`);
  await expectHeading(page, 'This link has expired');
  await check(page, 'link-gone');
  const locked = await linkFor(who);
  await page.goto(`${portal.base}/l/${locked.token}`);
  for (let i = 0; i < 5; i++) {
    await page.getByLabel('Your date of birth').fill('2001-01-01');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.locator('h1').waitFor();
  }
  await expectHeading(page, 'Too many attempts');
  await check(page, 'locked');
  // A form sent after its session ended (here: cookies cleared) is refused without counting an attempt.
  const stale = await linkFor(who);
  await page.goto(`${portal.base}/l/${stale.token}`);
  await page.context().clearCookies();
  await page.getByLabel('Your date of birth').fill(BIRTH_DATE);
  await page.getByRole('button', { name: 'Continue' }).click();
  await expectHeading(page, 'This form has expired');
  await check(page, 'expired-form');
  await page.goto(`${portal.base}/debts`);
  await expectHeading(page, 'You are signed out');
  await check(page, 'session-ended');
  await page.goto(`${portal.base}/nowhere`);
  await expectHeading(page, 'Page not found');
  await check(page, 'not-found');
}

describe('with JavaScript on, at 1280 px', () => {
  test(
    'the journey works and every page has no axe-core violation (WCAG 2.2 A and AA)',
    async () => {
      const page = await newPage(browser);
      await walkJourney(page, portal.base, (await linkFor(who)).token, async (p, name) => {
        await expectAccessible(p, name);
        await shoot(p, name);
      });
      await page.context().close();
    },
    BROWSER_TEST_MS,
  );

  test(
    'the dead ends (unknown, expired, locked link; expired form; ended session; not found) have no axe-core violation',
    async () => {
      const page = await newPage(browser);
      await deadEnds(page, async (p, name) => {
        await expectAccessible(p, name);
        await shoot(p, name);
      });
      await page.context().close();
    },
    BROWSER_TEST_MS,
  );

  test(
    'the error summary takes focus after a wrong answer and its link leads to the field',
    async () => {
      const page = await newPage(browser);
      await page.goto(`${portal.base}/l/${(await linkFor(who)).token}`);
      await page.getByLabel('Your date of birth').fill('1980-03-28');
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.locator('.error-summary').waitFor();
      await expect(focusedId(page)).resolves.toMatchObject({ className: 'error-summary' });
      await page.getByRole('link', { name: /do not match our records/ }).click();
      await expect(focusedId(page)).resolves.toMatchObject({ id: 'answer' });
      await page.context().close();
    },
    BROWSER_TEST_MS,
  );
});

describe('the accessibility check itself', () => {
  test(
    'fails on a page with a known violation (an image without a text alternative)',
    async () => {
      const page = await newPage(browser);
      await page.setContent('<!doctype html><html lang="en"><head><title>t</title></head><body><main><h1>t</h1><img src="x.png"></main></body></html>');
      await expect(expectAccessible(page, 'bad page')).rejects.toThrow(/image-alt/);
      await page.context().close();
    },
    BROWSER_TEST_MS,
  );
});

describe('with JavaScript off', () => {
  test(
    'the journey works on plain HTML forms and links',
    async () => {
      const page = await newPage(browser, { javaScriptEnabled: false });
      const seen: string[] = [];
      await walkJourney(page, portal.base, (await linkFor(who)).token, async (_p, name) => void seen.push(name));
      expect(seen).toEqual(['verify', 'verify-error', 'debts', 'debt', 'signed-out']);
      await page.context().close();
    },
    BROWSER_TEST_MS,
  );
});

describe('at 320 px', () => {
  test(
    'no page of the journey or of the dead ends scrolls sideways',
    async () => {
      const page = await newPage(browser, { viewport: { width: 320, height: 640 } });
      const check = async (p: Page, name: string) => {
        await expectNoSidewaysScroll(p, name);
        await shoot(p, name);
      };
      await walkJourney(page, portal.base, (await linkFor(who)).token, check);
      await deadEnds(page, check);
      await page.context().close();
    },
    BROWSER_TEST_MS,
  );
});
