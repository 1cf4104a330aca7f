/**
 * What the portal's browser tests beside this file share: Chromium and the portal application on a
 * free port over the suite's PostgreSQL for each test file (`browserRigPerFile`), a customer with a
 * debt, a payment and a portal link, a customer whose organisation offers plans and paying later,
 * Debian's Chromium through playwright-core (never a downloaded browser), an axe-core check
 * against WCAG 2.0/2.1/2.2 A and AA, and screenshots at 320 and 1280 px into `PORTAL_SHOTS_DIR` when that is set.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from '@jest/globals';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';
import { buildPortal } from '@dms/portal/app';
import { createLogger } from '@dms/logger';
import { createPortalLink } from '@dms/domain/portal';
import { closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { createDebt } from '../support/debts.js';

/** Debian's chromium package (scripts/ensure-chromium.sh installs it before `npm test`). */
export const CHROMIUM = '/usr/bin/chromium';

/** The axe-core rule tags every portal page must pass: WCAG 2.0, 2.1 and 2.2, levels A and AA. */
export const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/** Starts headless Debian Chromium (throws naming the install script when it is missing). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run scripts/ensure-chromium.sh (installs Debian's chromium package).`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** A running portal: its base URL and `close()` (server, then the session store's pool). */
export interface RunningPortal {
  base: string;
  close: () => Promise<void>;
}

/** Builds the portal application on a free port of 127.0.0.1 over the suite's database. */
export async function startPortal(): Promise<RunningPortal> {
  const portal = buildPortal({
    db: testDb(),
    log: createLogger('portal', 'silent'),
    databaseUrl: process.env.TEST_DATABASE_URL!,
    baseUrl: 'http://localhost',
    sessionSecret: 'test-session-secret',
  });
  const server = createServer(portal);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      await new Promise((ok) => server.close(ok));
      await portal.close();
    },
  };
}

/**
 * Chromium and a portal for one test file: started before its tests, closed after them with the
 * suite's harness. Read `rig.browser` and `rig.portal` inside tests (they are set by then).
 */
export function browserRigPerFile(): { browser: Browser; portal: RunningPortal } {
  const rig = {} as { browser: Browser; portal: RunningPortal };
  beforeAll(async () => {
    [rig.browser, rig.portal] = await Promise.all([launchChromium(), startPortal()]);
  });
  afterAll(async () => {
    await rig.browser?.close();
    await rig.portal?.close();
    await closeHarness();
  });
  return rig;
}

/** Time limit of one browser test: a few seconds alone, far more on a shared, loaded machine. */
export const BROWSER_TEST_MS = 150_000;

/** The date of birth of every seeded customer (the default verification fact). */
export const BIRTH_DATE = '1980-03-27';

/** A customer of a new tenant: date of birth set, one ready debt (account ACC-77, 100.00 GBP) with a 25.00 payment. */
export interface SeededCustomer {
  tenantId: string;
  customerId: string;
  debtId: string;
}

/** Seeds a customer with one debt, its line item and a payment, through the public API. */
export async function seedCustomer(): Promise<SeededCustomer> {
  const me = await signedInTenant();
  const parties = await seedParties(me.api);
  await me.api.patch(`/customers/${parties.customerId}`, { date_of_birth: BIRTH_DATE }).expect(200);
  const debt = await createDebt(me.api, parties, { account_number: 'ACC-77', breakdown: undefined, line_items: [{ kind: 'debt', amount: 10000 }] });
  await me.api.post(`/debts/${debt.id}/ready`).expect(200);
  await me.api.post(`/debts/${debt.id}/payments`, { amount: 2500, currency: 'GBP' }).expect(201);
  return { tenantId: me.tenant.tenantId, customerId: parties.customerId, debtId: debt.id as string };
}

/** A customer of a new tenant whose organisation offers plans and paying later (at most 3 instalments of at least 10.00). */
export interface OfferingCustomer {
  tenant: Awaited<ReturnType<typeof signedInTenant>>;
  parties: Awaited<ReturnType<typeof seedParties>>;
}

/** Seeds an `OfferingCustomer` (date of birth `BIRTH_DATE`) through the public API. */
export async function offeringCustomer(): Promise<OfferingCustomer> {
  const tenant = await signedInTenant();
  const parties = await seedParties(tenant.api);
  await tenant.api.patch(`/customers/${parties.customerId}`, { date_of_birth: BIRTH_DATE }).expect(200);
  const options = { payment_plans_permitted: true, pay_later_permitted: true, max_instalments: 3, min_instalment_amount: 1000 };
  await tenant.api.patch(`/organisations/${parties.organisationId}`, { payment_options_configuration: options }).expect(200);
  return { tenant, parties };
}

/** A new ready debt of 75.00 GBP of `of`'s customer. */
export async function freshDebt(of: OfferingCustomer): Promise<SeededCustomer> {
  const debt = await createDebt(of.tenant.api, of.parties, { breakdown: { principal: 7500 } });
  await of.tenant.api.post(`/debts/${debt.id}/ready`).expect(200);
  return { tenantId: of.tenant.tenant.tenantId, customerId: of.parties.customerId, debtId: debt.id as string };
}

/** A fresh portal link of `who` (30 days, no debt: verification leads to the debts list). */
export async function linkFor(who: SeededCustomer): Promise<{ id: string; token: string }> {
  const { row, token } = await createPortalLink(testDb(), { tenantId: who.tenantId, customerId: who.customerId, ttlDays: 30 });
  return { id: row.id, token };
}

/** A new page in a new context (`options`: viewport, javaScriptEnabled…); close its context after use. */
export async function newPage(browser: Browser, options: BrowserContextOptions = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...options });
  return context.newPage();
}

/** Runs axe-core with WCAG_TAGS on the page; fails listing each violation's rule, impact and first targets. */
export async function expectAccessible(page: Page, label: string): Promise<void> {
  await page.waitForLoadState('load'); // axe measures the page as styled (target sizes come from the stylesheet)
  const { violations } = await new AxeBuilder({ page }).withTags(WCAG_TAGS).analyze();
  const found = violations.map(
    (v) =>
      `${label}: ${v.id} (${v.impact}) ${v.help} at ${v.nodes
        .map((n) => n.target.join(' '))
        .slice(0, 3)
        .join(', ')}`,
  );
  expect(found).toEqual([]);
}

/**
 * Runs `expectAccessible` on what a page without JavaScript shows: axe-core is a script, which
 * such a page will not run, so the same HTML (`page.content()`) is served at the same address to
 * `reader`, a page of a context with JavaScript (its stylesheet comes from the portal as usual).
 */
export async function expectAccessibleWithoutScripts(page: Page, reader: Page, label: string): Promise<void> {
  const html = await page.content();
  const address = page.url();
  const same = (url: URL) => url.href === address;
  await reader.route(same, (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html }));
  try {
    await reader.goto(address);
  } finally {
    await reader.unroute(same);
  }
  await expectAccessible(reader, label);
}

/** Fails when the page scrolls sideways at its viewport width (WCAG 1.4.10 reflow at 320 px). */
export async function expectNoSidewaysScroll(page: Page, label: string): Promise<void> {
  const { scroll, width } = (await page.evaluate('({ scroll: document.scrollingElement.scrollWidth, width: window.innerWidth })')) as {
    scroll: number;
    width: number;
  };
  expect({ label, scroll }).toEqual({ label, scroll: Math.min(scroll, width) });
}

/**
 * Fails when a word of a table cell is broken across lines (a narrow column at 320 px would
 * otherwise read "Montan / t"): each word's text range must lie on one line.
 */
export async function expectWholeWordsInTables(page: Page, label: string): Promise<void> {
  const broken = (await page.evaluate(`[...document.querySelectorAll('th, td')].flatMap((cell) => {
    const out = [];
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.data.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        if (tops.size > 1) out.push(m[0]);
      }
    }
    return out;
  })`)) as string[];
  expect({ label, broken }).toEqual({ label, broken: [] });
}

/** The widths of every screenshot (docs/portal-screenshots.md): the narrowest phone WCAG 1.4.10 names, and a laptop. */
export const SHOT_WIDTHS = [320, 1280] as const;

/**
 * When PORTAL_SHOTS_DIR names a directory, saves the page as full-page screenshots
 * `<dir>/<name>-<width>.png` at each of SHOT_WIDTHS (px), then gives the page back its own
 * viewport; otherwise does nothing. `npm run docs:screenshots` (scripts/docs-screenshots.mjs)
 * sets it and picks the pages of the docs from what the browser tests shoot.
 */
export async function shoot(page: Page, name: string): Promise<void> {
  const dir = process.env.PORTAL_SHOTS_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  const own = page.viewportSize() ?? { width: 1280, height: 800 };
  for (const width of SHOT_WIDTHS) {
    await page.setViewportSize({ width, height: own.height });
    await page.screenshot({ path: join(dir, `${name}-${width}.png`), fullPage: true, animations: 'disabled', caret: 'hide' });
  }
  await page.setViewportSize(own);
}

/**
 * What is focused: its tag, its text (`#id` for a field) and whether an outline or box-shadow marks
 * it. Waits for the page's `load` first: after a navigation the heading can be in the DOM before
 * the stylesheet has arrived (a loaded machine), and the focus ring is the stylesheet's.
 */
export async function focused(page: Page): Promise<{ tag: string; text: string; visible: boolean }> {
  await page.waitForLoadState('load');
  return (await page.evaluate(`(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return { tag: 'body', text: '', visible: false };
    const s = getComputedStyle(el);
    const outline = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2;
    return { tag: el.tagName.toLowerCase(), text: (el.textContent || '').trim() || '#' + el.id, visible: outline || s.boxShadow !== 'none' };
  })()`)) as { tag: string; text: string; visible: boolean };
}

/**
 * The focused element's `id` and `class` attribute ('' when none), once the page has loaded (an
 * `autofocus` element, the error summary, takes focus after it is in the DOM, not with it).
 */
export async function focusedId(page: Page): Promise<{ id: string; className: string }> {
  await page.waitForLoadState('load');
  return (await page.evaluate("({ id: document.activeElement?.id ?? '', className: document.activeElement?.className ?? '' })")) as {
    id: string;
    className: string;
  };
}

/** Presses Tab until the focused element's text matches `text` (at most `max` presses), checking every stop shows its focus. */
export async function tabTo(page: Page, text: RegExp, max = 15): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const f = await focused(page);
    expect({ stop: f.text, visible: f.visible }).toEqual({ stop: f.text, visible: true });
    if (text.test(f.text)) return;
  }
  throw new Error(`no element matching ${String(text)} within ${max} Tab presses`);
}

/** Waits (up to 10 s, as a key press may still be navigating) for the page's `h1` to read `text`; fails with the heading actually shown. */
export async function expectHeading(page: Page, text: string): Promise<void> {
  await page
    .waitForFunction(`document.querySelector('h1')?.textContent?.trim() === ${JSON.stringify(text)}`, undefined, { timeout: 10_000 })
    .catch(() => undefined);
  await expect(page.locator('h1').innerText()).resolves.toBe(text);
}
