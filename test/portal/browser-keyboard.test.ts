/**
 * The customer portal with the keyboard only, in Debian's Chromium (issue 31): Tab, Shift+Tab,
 * Enter and Space, never a pointer. Every focus stop shows a visible ring; after a wrong answer the
 * error summary has focus and its link leads to the field; the journey reaches sign-out.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import {
  BIRTH_DATE,
  BROWSER_TEST_MS,
  browserRigPerFile,
  expectHeading,
  focused,
  focusedId,
  linkFor,
  newPage,
  seedCustomer,
  tabTo,
  type SeededCustomer,
} from './browser-support.js';

const rig = browserRigPerFile();
let who: SeededCustomer;

beforeAll(async () => {
  who = await seedCustomer();
});

describe('keyboard only', () => {
  test(
    'link → verify (wrong, then right) → debts → debt → sign out, with a visible focus at every stop',
    async () => {
      const page = await newPage(rig.browser);
      const heading = () => page.locator('h1').innerText();
      await page.goto(`${rig.portal.base}/l/${(await linkFor(who)).token}`);

      // The first stop is the skip link, shown on screen while focused.
      await page.keyboard.press('Tab');
      await expect(focused(page)).resolves.toEqual({ tag: 'a', text: 'Skip to content', visible: true });
      const skip = await page.getByRole('link', { name: 'Skip to content' }).boundingBox();
      expect(skip!.x).toBeGreaterThanOrEqual(0);

      await tabTo(page, /^#answer$/);
      await page.keyboard.type('1980-03-28');
      await page.keyboard.press('Enter');
      await page.locator('.error-summary').waitFor();
      // The error summary has focus (announced first); the next Tab is its link, which leads to the field.
      await expect(focusedId(page)).resolves.toEqual({ id: '', className: 'error-summary' });
      await expect(focused(page)).resolves.toMatchObject({ visible: true });
      await page.keyboard.press('Tab');
      await expect(focused(page)).resolves.toMatchObject({ tag: 'a', text: expect.stringMatching(/do not match our records/), visible: true });
      await page.keyboard.press('Enter');
      await expect(focusedId(page)).resolves.toMatchObject({ id: 'answer' });
      await page.keyboard.type(BIRTH_DATE);
      await page.keyboard.press('Enter');
      await expectHeading(page, 'Your accounts');

      await tabTo(page, /Northwind Utilities, account ACC-77/);
      await page.keyboard.press('Enter');
      await expectHeading(page, 'Your account with Northwind Utilities');
      // Back and forth: Shift+Tab returns to the previous stop.
      await tabTo(page, /^All your accounts$/);
      await page.keyboard.press('Shift+Tab');
      await expect(focused(page)).resolves.toMatchObject({ tag: 'button', text: 'Sign out', visible: true });
      await page.keyboard.press('Space');
      await expectHeading(page, 'You are signed out');
      await expect(heading()).resolves.toBe('You are signed out');
      await page.context().close();
    },
    BROWSER_TEST_MS,
  );
});
