/**
 * `npm run docs:screenshots`: screenshots of every page of the customer portal at 320 px and
 * 1280 px (full page) in docs/screenshots/, and docs/portal-screenshots.md listing them.
 *
 * The pages are walked by the portal's browser tests (TESTS below), run by Jest as `npm test`
 * runs them: a fresh database on `DATABASE_URL`'s server (else the embedded PostgreSQL of the
 * tests), the issuer and the API on free ports, the portal on a free port, Debian's Chromium. With `PORTAL_SHOTS_DIR` set, their
 * `shoot` (test/portal/browser-support.ts) saves each page as `<name>-320.png` and
 * `<name>-1280.png`; this script runs them into a temporary directory, then copies the pages of
 * PAGES under their documented names (stale PNGs of docs/screenshots/ are removed first) and
 * writes the page list. Exit code: Jest's when the tests fail, 1 when a page of PAGES was not shot.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'docs', 'screenshots');
const LIST = join(ROOT, 'docs', 'portal-screenshots.md');
/** The widths `shoot` photographs (SHOT_WIDTHS of test/portal/browser-support.ts), px. */
const WIDTHS = [320, 1280];
/** The test files that walk the pages (each shoots the pages it visits). */
const TESTS = [
  'test/portal/browser.test.ts',
  'test/portal/browser-pay.test.ts',
  'test/portal/browser-offers.test.ts',
  'test/portal/propose-browser.test.ts',
  'test/portal/browser-statement.test.ts',
  'test/portal/browser-circumstances.test.ts',
];

/**
 * The documented pages, by section: `page` (the PNGs' name in docs/screenshots/), `from` (the
 * name the tests shoot it under) and what the page is for.
 * @type {Array<[string, Array<{ page: string, from: string, purpose: string }>]>}
 */
const PAGES = [
  [
    'Getting in',
    [
      {
        page: 'verify',
        from: 'verify',
        purpose: 'Where a link lands (`GET /l/:token` → `/verify`): the organisation asks for its check, here the date of birth.',
      },
      { page: 'verify-error', from: 'verify-error', purpose: 'A wrong answer: the error summary takes focus and links to the field.' },
      { page: 'verify-fr-FR', from: 'fr-FR-verify', purpose: 'The verify page in French, after choosing "Français".' },
      { page: 'locked', from: 'locked', purpose: 'Five wrong answers lock the link for an hour (429).' },
      { page: 'link-unknown', from: 'link-unknown', purpose: 'A link that does not exist (404): nothing of a debt is shown.' },
      { page: 'link-gone', from: 'link-gone', purpose: 'An expired or revoked link (410): ask for a new message.' },
      { page: 'expired-form', from: 'expired-form', purpose: 'A form sent after its session ended (403): open the link again.' },
    ],
  ],
  [
    'Your accounts',
    [
      { page: 'debts', from: 'debts', purpose: "The customer's debts with the link's tenant (no brand: it may span organisations)." },
      { page: 'debt', from: 'debt', purpose: 'One debt: balance, line items, payments and messages, and every journey from it.' },
      { page: 'debt-fr-FR', from: 'fr-FR-debt', purpose: 'The debt page in French (amounts and dates by `Intl` in fr-FR).' },
      { page: 'signed-out', from: 'signed-out', purpose: 'After "Sign out": the session is ended.' },
      { page: 'session-ended', from: 'session-ended', purpose: 'A signed-in page without a session (401): open the link of the message again.' },
      { page: 'not-found', from: 'not-found', purpose: 'A page that does not exist, or a debt that is not the customer’s (404).' },
    ],
  ],
  [
    'Paying',
    [
      { page: 'pay-amount', from: 'pay-amount', purpose: 'How much to pay, between the smallest payment accepted and the balance.' },
      { page: 'pay-amount-error', from: 'pay-amount-error', purpose: 'No amount given: the error summary links to the field.' },
      { page: 'pay-check', from: 'pay-check', purpose: 'Check the payment before going to the payment page.' },
      { page: 'pay-checkout', from: 'pay-checkout', purpose: "The local provider's test checkout: the card number (no real card is charged)." },
      { page: 'pay-received', from: 'pay-received', purpose: 'The confirmation: the payment was received.' },
      { page: 'pay-nothing-due', from: 'pay-nothing-due', purpose: 'The pay page of a debt with nothing left to pay: no form.' },
    ],
  ],
  [
    'Ways to pay: plans and pay later',
    [
      { page: 'plan-offers', from: 'plan-js-on-offers', purpose: 'The offers the organisation allows: in full, pay later, plans shortest first.' },
      { page: 'plan-date', from: 'plan-js-on-date', purpose: 'The date of the first payment of the plan chosen.' },
      { page: 'plan-date-error', from: 'plan-js-on-date-error', purpose: 'A date outside today to 30 days from today: the error summary.' },
      { page: 'plan-check', from: 'plan-js-on-check', purpose: 'Check your answers: the plan, its first date and the card authority.' },
      { page: 'plan-card', from: 'plan-js-on-card', purpose: "The local provider's checkout saving the card (nothing is taken now)." },
      { page: 'plan-confirmed', from: 'plan-js-on-done', purpose: 'The plan is set up with the saved card.' },
      { page: 'plan-authority-cancel', from: 'plan-js-on-authority', purpose: 'Cancel the payment authority: stop card payments for the plan.' },
      { page: 'later-date', from: 'later-date', purpose: 'Pay later: the date of the one payment.' },
      { page: 'later-check', from: 'later-check', purpose: 'Pay later: check your answers before saving the card.' },
      { page: 'later-done', from: 'later-done', purpose: 'Pay later: the payment is arranged on the saved card.' },
    ],
  ],
  [
    'Proposing a plan',
    [
      { page: 'propose-form', from: 'propose-js-1280-form', purpose: 'None of the offers works: the customer proposes an amount, how often and a first date.' },
      { page: 'propose-errors', from: 'propose-js-1280-errors', purpose: 'Missing terms: the error summary links to each field.' },
      { page: 'propose-check', from: 'propose-js-1280-check', purpose: 'Check your proposal before sending it.' },
      { page: 'propose-sent', from: 'propose-js-1280-sent', purpose: 'The proposal is sent; the organisation decides.' },
    ],
  ],
  [
    'Income and expenditure',
    [
      { page: 'statement-household', from: 'statement-js-household', purpose: 'Who lives in the household (adults, children, vehicles).' },
      { page: 'statement-income', from: 'statement-js-income', purpose: 'Income, each amount with how often it comes.' },
      { page: 'statement-income-error', from: 'statement-js-income-error', purpose: 'A negative amount: the error summary links to the field.' },
      { page: 'statement-fixed-costs', from: 'statement-js-fixed-costs', purpose: 'Fixed costs (housing, utilities…).' },
      { page: 'statement-flexible-costs', from: 'statement-js-flexible-costs', purpose: 'Flexible costs (food, travel…).' },
      { page: 'statement-debts', from: 'statement-js-debts', purpose: 'Payments to other debts.' },
      { page: 'statement-check', from: 'statement-js-check', purpose: 'Check your answers, each amount also as a monthly figure.' },
      { page: 'statement-done', from: 'statement-js-done', purpose: 'The statement is stored; what is left each month.' },
    ],
  ],
  [
    'Circumstances, plan changes and contact preferences',
    [
      { page: 'plan', from: 'plantime-plan', purpose: 'The payment plan: its schedule and what can be changed.' },
      { page: 'delay', from: 'plantime-delay', purpose: 'Delay the next payment: the new date.' },
      { page: 'delay-error', from: 'plantime-delay-error', purpose: 'A date the plan does not allow: the error summary.' },
      { page: 'delay-check', from: 'plantime-delay-check', purpose: 'Check your answers before delaying.' },
      { page: 'delay-done', from: 'plantime-delay-done', purpose: 'The next payment is delayed.' },
      { page: 'day', from: 'plantime-day', purpose: 'Change the day of the payments.' },
      { page: 'day-done', from: 'plantime-day-done', purpose: 'The day of the payments has changed.' },
      { page: 'breathing-kind', from: 'plantime-breathing-kind', purpose: 'Breathing space: which kind.' },
      { page: 'breathing-start', from: 'plantime-breathing-start', purpose: 'Breathing space: when it started.' },
      { page: 'breathing-reference', from: 'plantime-breathing-reference', purpose: "Breathing space: the Insolvency Service's reference." },
      { page: 'breathing-done', from: 'plantime-breathing-done', purpose: 'The breathing space is recorded; collection stops.' },
      { page: 'disclose-kind', from: 'plantime-disclose-kind', purpose: 'Telling us about your circumstances: what kind.' },
      { page: 'disclose-details', from: 'plantime-disclose-details', purpose: 'Telling us about your circumstances: the details.' },
      { page: 'disclose-done', from: 'plantime-disclose-done', purpose: 'Thank you for telling us; someone will follow up.' },
      { page: 'preferences-channels', from: 'plantime-preferences-channels', purpose: 'Contact preferences: how we may contact you.' },
      { page: 'preferences-hours', from: 'plantime-preferences-hours', purpose: 'Contact preferences: when we may contact you.' },
      { page: 'preferences-language', from: 'plantime-preferences-language', purpose: 'Contact preferences: which language.' },
      { page: 'preferences-done', from: 'plantime-preferences-done', purpose: 'The contact preferences are saved.' },
    ],
  ],
  [
    'Disputes and questions',
    [
      {
        page: 'dispute-form',
        from: 'dispute-form',
        purpose: 'Dispute the debt: a reason and more detail (the question form is the same, with its own reasons).',
      },
      { page: 'dispute-form-error', from: 'dispute-form-error', purpose: 'No reason and no text: the error summary links to both fields.' },
      { page: 'dispute-check', from: 'dispute-check', purpose: 'Check your answers before sending.' },
      { page: 'dispute-sent', from: 'dispute-sent', purpose: 'The dispute is sent; collection is on hold until it is answered.' },
    ],
  ],
];

/**
 * Runs the browser tests with `PORTAL_SHOTS_DIR=dir`, one file at a time (each starts its own Chromium).
 * @returns Jest's exit code (0 when every test passed)
 */
function shootInto(dir) {
  const jest = join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
  const run = spawnSync(process.execPath, ['--experimental-vm-modules', jest, '--runInBand', ...TESTS], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, PORTAL_SHOTS_DIR: dir },
  });
  return run.status ?? 1;
}

/** Replaces docs/screenshots/*.png with the pages of PAGES from `dir`; returns the pages not found there. */
function copyPages(dir) {
  const missing = PAGES.flatMap(([, pages]) => pages.flatMap(({ from }) => WIDTHS.map((w) => `${from}-${w}.png`))).filter((f) => !existsSync(join(dir, f)));
  if (missing.length > 0) return missing;
  mkdirSync(OUT, { recursive: true });
  for (const old of readdirSync(OUT).filter((f) => f.endsWith('.png'))) rmSync(join(OUT, old));
  for (const [, pages] of PAGES)
    for (const { page, from } of pages) for (const w of WIDTHS) copyFileSync(join(dir, `${from}-${w}.png`), join(OUT, `${page}-${w}.png`));
  return [];
}

/** docs/portal-screenshots.md: each page with its purpose and its two screenshots. */
function pageList() {
  const lines = [
    '# The customer portal, page by page',
    '',
    'Every page of the customer portal (docs/api.md section 18) at 320 px (a small phone; WCAG 1.4.10',
    'reflow) and 1280 px, full page, in British English unless marked fr-FR. Written by',
    '`npm run docs:screenshots` (scripts/docs-screenshots.mjs), which runs the portal browser tests',
    '(the browser*.test.ts and propose-browser.test.ts files of test/portal) against a fresh database and keeps the',
    'pages they walk; do not edit this file or docs/screenshots/ by hand, run it again.',
    '',
  ];
  for (const [section, pages] of PAGES) {
    lines.push(`## ${section}`, '');
    for (const { page, purpose } of pages) {
      lines.push(`### ${page}`, '', purpose, '');
      lines.push(WIDTHS.map((w) => `![${page} at ${w} px](screenshots/${page}-${w}.png)`).join(' '), '');
    }
  }
  return lines.join('\n');
}

/** Shoots, copies and lists the pages. @returns the exit code */
function main() {
  const dir = mkdtempSync(join(tmpdir(), 'dms-portal-shots-'));
  try {
    const code = shootInto(dir);
    if (code !== 0) {
      console.error(`docs:screenshots: the browser tests failed (exit ${code}); docs/screenshots/ is unchanged`);
      return code;
    }
    const missing = copyPages(dir);
    if (missing.length > 0) {
      console.error(`docs:screenshots: not shot by the browser tests (renamed?): ${missing.join(', ')}`);
      return 1;
    }
    writeFileSync(LIST, pageList());
    const count = PAGES.reduce((n, [, pages]) => n + pages.length, 0);
    console.log(`docs:screenshots: ${count} pages at ${WIDTHS.join(' and ')} px in docs/screenshots/, listed in docs/portal-screenshots.md`);
    return 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = main();
