/**
 * The journeys the portal's browser tests walk (browser.test.ts and browser-keyboard.test.ts beside this file), in either language:
 * the main journey (link → verification → debts → debt → sign out) and the dead ends (unknown,
 * revoked and locked links, an expired form, an ended session, a missing page). Each page's
 * heading is asserted from the language's words, then the caller's `check` runs on it.
 */
import { expect } from '@jest/globals';
import type { Page } from 'playwright-core';
import { testDb } from '../support/harness.js';
import { BIRTH_DATE, expectHeading, linkFor, type SeededCustomer } from './browser-support.js';

/** What a person reads and acts on, per language (the catalogues' words, written out independently). */
export const WORDS = {
  'en-GB': {
    verify: 'Confirm it is you',
    dateOfBirth: 'Your date of birth',
    continue: 'Continue',
    problem: 'There is a problem',
    mismatch: /do not match our records/,
    debts: 'Your accounts',
    debtLink: /Northwind Utilities, account ACC-77/,
    debt: 'Your account with Northwind Utilities',
    amounts: /£75\.00[\s\S]*£100\.00[\s\S]*£25\.00/,
    signOut: 'Sign out',
    signedOut: 'You are signed out',
    unknown: 'This link is not valid',
    gone: 'This link has expired',
    locked: 'Too many attempts',
    expiredForm: 'This form has expired',
    notFound: 'Page not found',
  },
  'fr-FR': {
    verify: 'Confirmez votre identité',
    dateOfBirth: 'Votre date de naissance',
    continue: 'Continuer',
    problem: 'Il y a un problème',
    mismatch: /ne correspondent pas à nos données/,
    debts: 'Vos comptes',
    debtLink: /Northwind Utilities, compte ACC-77/,
    debt: 'Votre compte auprès de Northwind Utilities',
    amounts: /75,00\s£[\s\S]*100,00\s£[\s\S]*25,00\s£/,
    signOut: 'Se déconnecter',
    signedOut: 'Vous êtes déconnecté',
    unknown: 'Ce lien n’est pas valide',
    gone: 'Ce lien a expiré',
    locked: 'Trop de tentatives',
    expiredForm: 'Ce formulaire a expiré',
    notFound: 'Page introuvable',
  },
} as const;

/** A language of WORDS. */
export type Lang = keyof typeof WORDS;

/** A page of a journey, handed to the caller's check with its short name (also the screenshot's). */
export type PageCheck = (page: Page, name: string) => Promise<void>;

/**
 * Sends the verification form with `answer`, by pointer and typing, and waits for the page it
 * leads to: the page before has an `h1` too, so without this a slow answer lets the next one be
 * typed into the old page (and sent twice).
 */
async function answer(page: Page, lang: Lang, value: string): Promise<void> {
  await page.getByLabel(WORDS[lang].dateOfBirth).fill(value);
  const loaded = page.waitForEvent('load');
  await page.getByRole('button', { name: WORDS[lang].continue }).click();
  await loaded;
}

/**
 * Walks the journey with pointer and typing as most people do: the link → verification (a wrong
 * date of birth first, then the right one) → the debts list → the debt → sign out, asserting each
 * page's heading and calling `check` on each (names: verify, verify-error, debts, debt,
 * signed-out). In French the person opens the link, then follows the "Français" link.
 */
export async function walkJourney(page: Page, base: string, token: string, check: PageCheck, lang: Lang = 'en-GB'): Promise<void> {
  const w = WORDS[lang];
  await page.goto(`${base}/l/${token}`);
  expect(new URL(page.url()).pathname).toBe('/verify');
  if (lang === 'fr-FR') await page.getByRole('link', { name: 'Français' }).click();
  await expectHeading(page, w.verify);
  await expect(page.locator('html').getAttribute('lang')).resolves.toBe(lang);
  await check(page, 'verify');
  await answer(page, lang, '1980-03-28');
  await page.getByRole('heading', { level: 2, name: w.problem }).waitFor();
  await expect(page.getByRole('link', { name: w.mismatch }).count()).resolves.toBe(1);
  await check(page, 'verify-error');
  await answer(page, lang, BIRTH_DATE);
  await expectHeading(page, w.debts);
  await check(page, 'debts');
  await page.getByRole('link', { name: w.debtLink }).click();
  await expectHeading(page, w.debt);
  await expect(page.locator('main').innerText()).resolves.toMatch(w.amounts);
  await check(page, 'debt');
  await page.getByRole('button', { name: w.signOut }).click();
  await expectHeading(page, w.signedOut);
  await check(page, 'signed-out');
}

/**
 * Walks the dead ends at the page's width, in the context's language (French through the
 * browser's Accept-Language): an unknown link, a revoked one, five wrong answers (locked), a form
 * sent after its session ended (cookies cleared: refused, no attempt counted), `/debts` without a
 * session, a missing page. Names: link-unknown, link-gone, locked, expired-form, session-ended, not-found.
 */
export async function walkDeadEnds(page: Page, base: string, who: SeededCustomer, check: PageCheck, lang: Lang = 'en-GB'): Promise<void> {
  const w = WORDS[lang];
  await page.goto(`${base}/l/${'A'.repeat(43)}`);
  await expectHeading(page, w.unknown);
  await check(page, 'link-unknown');
  const gone = await linkFor(who);
  await testDb()('portal_links').where({ id: gone.id }).update({ revoked_at: new Date() });
  await page.goto(`${base}/l/${gone.token}`);
  await expectHeading(page, w.gone);
  await check(page, 'link-gone');
  await page.goto(`${base}/l/${(await linkFor(who)).token}`);
  for (let i = 0; i < 5; i++) {
    await answer(page, lang, '2001-01-01');
    await page.locator('h1').waitFor();
  }
  await expectHeading(page, w.locked);
  await check(page, 'locked');
  await page.goto(`${base}/l/${(await linkFor(who)).token}`);
  await page.context().clearCookies();
  await answer(page, lang, BIRTH_DATE);
  await expectHeading(page, w.expiredForm);
  await check(page, 'expired-form');
  await page.goto(`${base}/debts`);
  await expectHeading(page, w.signedOut);
  await check(page, 'session-ended');
  await page.goto(`${base}/nowhere`);
  await expectHeading(page, w.notFound);
  await check(page, 'not-found');
}
