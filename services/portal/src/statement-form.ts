/**
 * The statement journey's form logic (docs/api.md section 18 "Income and expenditure"): its
 * pages (one per group of the domain's `STATEMENT_GROUPS`, priority and other debts together),
 * reading a page's fields into entries (amount typed in major units → minor units, with its
 * frequency) with one message key per bad field, and the allow-list of return addresses.
 * Validation of the whole statement stays the domain's (`validateStatement`).
 */
import {
  ENTRY_FREQUENCIES,
  HOUSEHOLD_FIELDS,
  MAX_ENTRY_AMOUNT,
  STATEMENT_GROUPS,
  type EnteredAmount,
  type EntryFrequency,
  type StatementGroup,
} from '@dms/domain/income-and-expenditure';
import type { FieldError } from './render.js';
import { parseAmount } from './routes/pay.js';

/** The journey's pages in order: the household, then money pages each with its groups. */
export const STEPS = {
  household: [],
  income: ['income'],
  'fixed-costs': ['fixed_costs'],
  'flexible-costs': ['flexible_costs'],
  debts: ['priority_debts', 'other_debts'],
} as const satisfies Record<string, readonly StatementGroup[]>;

/** A page's name (the last part of its path). */
export type Step = keyof typeof STEPS;

/** True when `value` names a page of the journey. */
export function isStep(value: unknown): value is Step {
  return typeof value === 'string' && Object.hasOwn(STEPS, value);
}

/** The page after `step`, or `check` after the last. */
export function nextStep(step: Step): Step | 'check' {
  const steps = Object.keys(STEPS) as Step[];
  return steps[steps.indexOf(step) + 1] ?? 'check';
}

/** Answers kept in the session between pages: household counts and entries by `group.entry`; `typed` holds every field as typed. */
export interface StatementDraft {
  debtId: string;
  returnTo: string;
  household?: Record<string, number>;
  entries: Record<string, EnteredAmount>;
  typed: Record<string, string>;
}

/** The field ids of one entry of a group (amount, then its frequency). */
export function entryFields(group: StatementGroup): { key: string; id: string; freq: string }[] {
  return STATEMENT_GROUPS[group].map((e) => ({ key: `${group}.${e}`, id: `${group}-${e}`, freq: `${group}-${e}-frequency` }));
}

const text = (body: Record<string, unknown>, name: string): string => (typeof body[name] === 'string' ? body[name].trim().slice(0, 30) : '');

/** Reads the household page: whole counts within HOUSEHOLD_FIELDS (adults at least 1); errors keyed `statement:error.<field>`. */
export function readHousehold(body: Record<string, unknown>): { values: Record<string, number>; typed: Record<string, string>; errors: FieldError[] } {
  const values: Record<string, number> = {};
  const typed: Record<string, string> = {};
  const errors: FieldError[] = [];
  for (const [field, max] of Object.entries(HOUSEHOLD_FIELDS)) {
    const given = text(body, field);
    typed[field] = given;
    const n = /^\d{1,3}$/.test(given) ? Number(given) : NaN;
    if (!(n >= (field === 'adults' ? 1 : 0) && n <= max)) errors.push({ field, message: `statement:error.${field}` });
    else values[field] = n;
  }
  return { values, typed, errors };
}

/** Why a typed amount is refused (`statement:error.<reason>`), or its minor units. */
function amountOf(given: string, currency: string): number | 'missing' | 'negative' | 'invalid' | 'too_large' {
  if (given === '') return 'missing';
  if (/^-/.test(given)) return 'negative';
  const amount = parseAmount(given, currency);
  if (amount === undefined) return 'invalid';
  return amount > MAX_ENTRY_AMOUNT ? 'too_large' : amount;
}

/**
 * Reads a money page's groups: each entry's amount (required, not negative, at most
 * MAX_ENTRY_AMOUNT minor units) and frequency (weekly, fortnightly or monthly).
 */
export function readEntries(
  body: Record<string, unknown>,
  groups: readonly StatementGroup[],
  currency: string,
): { entries: Record<string, EnteredAmount>; typed: Record<string, string>; errors: FieldError[] } {
  const entries: Record<string, EnteredAmount> = {};
  const typed: Record<string, string> = {};
  const errors: FieldError[] = [];
  for (const f of groups.flatMap(entryFields)) {
    const given = text(body, f.id);
    const frequency = text(body, f.freq);
    typed[f.id] = given;
    typed[f.freq] = frequency;
    const amount = amountOf(given, currency);
    if (typeof amount !== 'number') errors.push({ field: f.id, message: `statement:error.${amount}` });
    if (!ENTRY_FREQUENCIES.includes(frequency as EntryFrequency)) errors.push({ field: f.freq, message: 'statement:error.frequency' });
    else if (typeof amount === 'number') entries[f.key] = { amount, frequency: frequency as EntryFrequency };
  }
  return { entries, typed, errors };
}

/** The statement input the domain takes, from a complete draft; undefined while a page is unanswered. */
export function statementInput(draft: StatementDraft): Record<string, unknown> | undefined {
  if (!draft.household) return undefined;
  const input: Record<string, unknown> = { household: draft.household };
  for (const group of Object.keys(STATEMENT_GROUPS) as StatementGroup[]) {
    const fields = entryFields(group);
    if (fields.some((f) => !draft.entries[f.key])) return undefined;
    input[group] = Object.fromEntries(STATEMENT_GROUPS[group].map((e) => [e, draft.entries[`${group}.${e}`]]));
  }
  return input;
}

/** Where the journey may send the customer back to: `return` names one of these, under the same debt. */
export const RETURNS = { debt: '', offers: '/offers', propose: '/propose' } as const;

/**
 * The relative path to return to after the statement: `/debts/<id>` plus the allow-listed suffix
 * for `ret` (`offers`, `propose`), else the debt's own page. Never anything given by the client.
 */
export function returnPath(debtId: string, ret: unknown): string {
  const suffix = typeof ret === 'string' && Object.hasOwn(RETURNS, ret) ? RETURNS[ret as keyof typeof RETURNS] : '';
  return `/debts/${encodeURIComponent(debtId)}${suffix}`;
}
