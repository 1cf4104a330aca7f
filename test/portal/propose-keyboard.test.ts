/**
 * Proposing a plan with JavaScript off and the keyboard only, in Debian's Chromium (docs/api.md
 * section 18 "Proposals"; issue 31: pages are tested as people use them): Tab, Shift+Tab, Enter,
 * Space and typing, never a pointer. The customer opens the link, verifies, goes from the debt to
 * the ways to pay and on to proposing a plan; a bad amount first gives the error summary, which
 * takes focus and whose link leads to the field; then terms outside the policy (the statement is
 * given already) are checked and sent, and the proposal is recorded with the debt `assessing`.
 * Every focus stop shows a visible ring; every page has no axe-core violation (WCAG 2.2 A and AA).
 */
import { expect, test } from '@jest/globals';
import { createIncomeAndExpenditure } from '@dms/domain/income-and-expenditure';
import { testDb } from '../support/harness.js';
import { statementBody } from '../circumstances/support.js';
import {
  BIRTH_DATE,
  BROWSER_TEST_MS,
  browserRigPerFile,
  expectAccessibleWithoutScripts,
  expectHeading,
  focused,
  focusedId,
  linkFor,
  newPage,
  seedCustomer,
  tabTo,
} from './browser-support.js';

const rig = browserRigPerFile();

test(
  'with JavaScript off, by keyboard alone: link → verify → debt → ways to pay → propose (an error, then terms outside the policy) → check → sent',
  async () => {
    const who = await seedCustomer();
    await createIncomeAndExpenditure(testDb(), who.tenantId, who.debtId, statementBody(), `customer:${who.customerId}`);
    const page = await newPage(rig.browser, { javaScriptEnabled: false });
    const reader = await newPage(rig.browser);
    /** The page now shown has the heading `text` and no axe-core violation. */
    const onPage = async (text: string) => {
      await expectHeading(page, text);
      await expectAccessibleWithoutScripts(page, reader, text);
    };
    /** Presses `key` and waits for the page it leads to. */
    const press = async (key: string) => {
      const loaded = page.waitForEvent('load');
      await page.keyboard.press(key);
      await loaded;
    };
    try {
      await page.goto(`${rig.portal.base}/l/${(await linkFor(who)).token}`);
      await onPage('Confirm it is you');
      await tabTo(page, /^#answer$/);
      await page.keyboard.type(BIRTH_DATE);
      await press('Enter');
      await onPage('Your accounts');
      await tabTo(page, /Northwind Utilities, account ACC-77/);
      await press('Enter');
      await onPage('Your account with Northwind Utilities');
      await tabTo(page, /^See ways to pay, including a plan$/, 30);
      await press('Enter');
      await onPage('Ways to pay');
      await tabTo(page, /^Propose a payment plan$/, 40);
      await press('Enter');
      await onPage('Propose a payment plan');

      // Terms with an amount that is not one: the error summary has focus, its link leads to the field.
      await tabTo(page, /^#amount$/);
      await page.keyboard.type('lots');
      await page.keyboard.press('Tab');
      await expect(focusedId(page)).resolves.toEqual({ id: 'frequency', className: '' });
      await page.keyboard.press('Space');
      await tabTo(page, /^#start_on$/);
      await page.keyboard.type(new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10));
      await press('Enter');
      await page.locator('.error-summary').waitFor();
      await expectAccessibleWithoutScripts(page, reader, 'propose with an error');
      await expect(focusedId(page)).resolves.toEqual({ id: '', className: 'error-summary' });
      await expect(focused(page)).resolves.toMatchObject({ visible: true });
      await page.keyboard.press('Tab');
      await expect(focused(page)).resolves.toEqual({ tag: 'a', text: 'Enter how much you can pay each time, for example 25.00', visible: true });
      await page.keyboard.press('Enter');
      await expect(focused(page)).resolves.toEqual({ tag: 'input', text: '#amount', visible: true });

      // Back and forth with Shift+Tab, then terms outside the policy: 5.00 every week.
      await page.keyboard.press('Shift+Tab');
      await expect(focused(page)).resolves.toMatchObject({ visible: true });
      await tabTo(page, /^#amount$/);
      await page.keyboard.press('Control+A');
      await page.keyboard.type('5.00');
      await press('Enter');
      await onPage('Check your proposal');
      await expect(page.locator('main').innerText()).resolves.toMatch(/£5\.00[\s\S]*Every week/);
      await tabTo(page, /^Send the proposal$/, 30);
      await press('Enter');
      await onPage('Proposal sent');
    } finally {
      await page.context().close();
      await reader.context().close();
    }
    const proposals = await testDb()('proposals').where({ debt_id: who.debtId }).select('status', 'instalment_amount', 'frequency');
    expect(proposals).toEqual([{ status: 'pending', instalment_amount: 500, frequency: 'weekly' }]);
    expect(await testDb()('debts').where({ id: who.debtId }).first('status')).toEqual({ status: 'assessing' });
  },
  BROWSER_TEST_MS,
);

test(
  'the check of a page without JavaScript fails on a known violation (an image without a text alternative), and scripts do not run there',
  async () => {
    const page = await newPage(rig.browser, { javaScriptEnabled: false });
    const reader = await newPage(rig.browser);
    const bad =
      '<!doctype html><html lang="en"><head><title>t</title></head><body><main><h1 id="h">t</h1><img src="x.png"></main><script>document.getElementById("h").textContent = "ran"</script></body></html>';
    try {
      await page.route(`${rig.portal.base}/bad`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: bad }));
      await page.goto(`${rig.portal.base}/bad`);
      await expect(page.locator('h1').innerText()).resolves.toBe('t');
      await expect(expectAccessibleWithoutScripts(page, reader, 'bad page')).rejects.toThrow(/image-alt/);
    } finally {
      await page.context().close();
      await reader.context().close();
    }
  },
  BROWSER_TEST_MS,
);
