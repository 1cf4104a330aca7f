/**
 * The customer portal in Debian's Chromium (issue 31: pages are tested as people use them): the
 * journey link → verification → debts → debt → sign out with JavaScript on and off, at 1280 px and
 * 320 px (no sideways scroll), each page passing axe-core's WCAG 2.2 AA rules, the error and
 * dead-end pages included. Keyboard-only use is test/portal/browser-keyboard.test.ts.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import type { Page } from 'playwright-core';
import {
  BROWSER_TEST_MS,
  browserRigPerFile,
  expectAccessible,
  expectNoSidewaysScroll,
  expectWholeWordsInTables,
  focusedId,
  linkFor,
  newPage,
  seedCustomer,
  shoot,
  type SeededCustomer,
} from './browser-support.js';
import { walkDeadEnds, walkJourney } from './browser-journeys.js';

const rig = browserRigPerFile();
let who: SeededCustomer;

beforeAll(async () => {
  who = await seedCustomer();
});

describe('with JavaScript on, at 1280 px', () => {
  test(
    'the journey works and every page has no axe-core violation (WCAG 2.2 A and AA)',
    async () => {
      const page = await newPage(rig.browser);
      await walkJourney(page, rig.portal.base, (await linkFor(who)).token, async (p, name) => {
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
      const page = await newPage(rig.browser);
      await walkDeadEnds(page, rig.portal.base, who, async (p, name) => {
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
      const page = await newPage(rig.browser);
      await page.goto(`${rig.portal.base}/l/${(await linkFor(who)).token}`);
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

describe('in French (fr-FR)', () => {
  test(
    'the journey, after choosing Français, has every page in French with no axe-core violation',
    async () => {
      const page = await newPage(rig.browser);
      const seen: string[] = [];
      await walkJourney(
        page,
        rig.portal.base,
        (await linkFor(who)).token,
        async (p, name) => {
          await expectAccessible(p, `fr-FR ${name}`);
          await shoot(p, `fr-FR-${name}`);
          seen.push(name);
        },
        'fr-FR',
      );
      expect(seen).toEqual(['verify', 'verify-error', 'debts', 'debt', 'signed-out']);
      await page.context().close();
    },
    BROWSER_TEST_MS,
  );

  test(
    'the dead ends, for a browser asking for French, have no axe-core violation',
    async () => {
      const page = await newPage(rig.browser, { locale: 'fr-FR' });
      await walkDeadEnds(
        page,
        rig.portal.base,
        who,
        async (p, name) => {
          await expect(p.locator('html').getAttribute('lang')).resolves.toBe('fr-FR');
          await expectAccessible(p, `fr-FR ${name}`);
          await shoot(p, `fr-FR-${name}`);
        },
        'fr-FR',
      );
      await page.context().close();
    },
    BROWSER_TEST_MS,
  );
});

describe('the accessibility check itself', () => {
  test(
    'fails on a page with a known violation (an image without a text alternative)',
    async () => {
      const page = await newPage(rig.browser);
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
      const page = await newPage(rig.browser, { javaScriptEnabled: false });
      const seen: string[] = [];
      await walkJourney(page, rig.portal.base, (await linkFor(who)).token, async (_p, name) => void seen.push(name));
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
      const page = await newPage(rig.browser, { viewport: { width: 320, height: 640 } });
      const check = async (p: Page, name: string) => {
        await expectNoSidewaysScroll(p, name);
        await expectWholeWordsInTables(p, name);
        await shoot(p, name);
      };
      await walkJourney(page, rig.portal.base, (await linkFor(who)).token, check);
      await walkDeadEnds(page, rig.portal.base, who, check);
      await page.context().close();
    },
    BROWSER_TEST_MS,
  );

  test(
    'nor in French, whose longer words and amounts ("100,00 £GB") still fit the tables without breaking a word',
    async () => {
      const page = await newPage(rig.browser, { viewport: { width: 320, height: 640 } });
      const check = async (p: Page, name: string) => {
        await expectNoSidewaysScroll(p, `fr-FR ${name}`);
        await expectWholeWordsInTables(p, `fr-FR ${name}`);
      };
      await walkJourney(page, rig.portal.base, (await linkFor(who)).token, check, 'fr-FR');
      await page.context().close();
    },
    BROWSER_TEST_MS,
  );
});
