/**
 * The shape of an income and expenditure statement (docs/api.md "Income and
 * expenditure"), after the Standard Financial Statement: household, income, fixed costs,
 * flexible costs, priority debts and other debts. `validateStatement` reports every problem of an
 * input at once as `FieldError`s (usable for a 400 and for a page's error summary);
 * `normaliseStatement` stores each entry with its monthly figure; `disposableIncome` is the one
 * function that computes what is left each month.
 */
import { ApiError, type FieldError } from '@dms/errors';
import { ENTRY_FREQUENCIES, MAX_ENTRY_AMOUNT, storeAmount, type EnteredAmount, type StoredAmount } from './amounts.js';

/** The money groups of a statement and the entries each holds, in the order a form asks them. */
export const STATEMENT_GROUPS = {
  income: ['earnings', 'benefits', 'pensions', 'other'],
  fixed_costs: ['housing', 'council_tax', 'utilities', 'childcare', 'insurance', 'transport'],
  flexible_costs: ['food_and_housekeeping', 'personal', 'communications', 'leisure'],
  priority_debts: ['payments'],
  other_debts: ['payments'],
} as const;

/** A money group's name. */
export type StatementGroup = keyof typeof STATEMENT_GROUPS;

/** The household entries and their largest accepted value (people or vehicles). */
export const HOUSEHOLD_FIELDS = { adults: 20, children: 30, vehicles: 20 } as const;

/** A household: counts of adults (at least 1), children and vehicles. */
export type Household = Record<keyof typeof HOUSEHOLD_FIELDS, number>;

/** A statement as entered: household and each group's entries. */
export type StatementInput = { household: Household } & { [G in StatementGroup]: Record<(typeof STATEMENT_GROUPS)[G][number], EnteredAmount> };

/** A statement as stored: each entry with its monthly figure. */
export type StoredStatement = { household: Household } & { [G in StatementGroup]: Record<(typeof STATEMENT_GROUPS)[G][number], StoredAmount> };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Problems of one entry (`group.entry`): a non-negative integer amount within bounds, a known frequency. */
function entryErrors(param: string, value: unknown): FieldError[] {
  if (!isObject(value)) return [{ param, message: `${param} is required: an object with amount and frequency.` }];
  const errors: FieldError[] = [];
  const { amount, frequency } = value;
  if (typeof amount !== 'number' || !Number.isInteger(amount))
    errors.push({ param: `${param}.amount`, message: 'Enter a whole number of minor units (e.g. 1250 for 12.50).' });
  else if (amount < 0) errors.push({ param: `${param}.amount`, message: 'The amount cannot be negative.' });
  else if (amount > MAX_ENTRY_AMOUNT)
    errors.push({ param: `${param}.amount`, message: `The amount cannot exceed ${MAX_ENTRY_AMOUNT} minor units; check the figure.` });
  if (!ENTRY_FREQUENCIES.includes(frequency as never))
    errors.push({ param: `${param}.frequency`, message: `Choose how often: ${ENTRY_FREQUENCIES.join(', ')}.` });
  return errors;
}

/**
 * Every problem of a statement input: missing groups or entries, negative or absurd amounts,
 * unknown frequencies, household counts out of range, unknown fields.
 * @returns an empty list when the input is a valid `StatementInput`
 */
export function validateStatement(input: unknown): FieldError[] {
  if (!isObject(input)) return [{ param: 'statement', message: 'The statement must be an object.' }];
  const errors: FieldError[] = [];
  const known = new Set<string>(['household', ...Object.keys(STATEMENT_GROUPS)]);
  for (const key of Object.keys(input)) if (!known.has(key)) errors.push({ param: key, message: `${key} is not a field of a statement.` });
  const household = input.household;
  if (!isObject(household)) errors.push({ param: 'household', message: 'household is required: adults, children and vehicles.' });
  else
    for (const [field, max] of Object.entries(HOUSEHOLD_FIELDS)) {
      const v = household[field];
      const min = field === 'adults' ? 1 : 0;
      if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
        errors.push({ param: `household.${field}`, message: `Enter a whole number from ${min} to ${max}.` });
    }
  for (const [group, entries] of Object.entries(STATEMENT_GROUPS)) {
    const value = input[group];
    if (!isObject(value)) {
      errors.push({ param: group, message: `${group} is required: ${entries.join(', ')}.` });
      continue;
    }
    for (const key of Object.keys(value))
      if (!(entries as readonly string[]).includes(key)) errors.push({ param: `${group}.${key}`, message: `${key} is not an entry of ${group}.` });
    for (const entry of entries) errors.push(...entryErrors(`${group}.${entry}`, value[entry]));
  }
  return errors;
}

/**
 * Validates and stores a statement input.
 * @throws ApiError `validation_failed` (400) naming the first field, with every problem in `errors`
 */
export function normaliseStatement(input: unknown): StoredStatement {
  const errors = validateStatement(input);
  if (errors.length > 0) throw new ApiError('validation_failed', errors[0]!.message, { param: errors[0]!.param, errors });
  const valid = input as StatementInput;
  const out: Record<string, unknown> = { household: { ...valid.household } };
  for (const [group, entries] of Object.entries(STATEMENT_GROUPS)) {
    const source = valid[group as StatementGroup] as Record<string, EnteredAmount>;
    out[group] = Object.fromEntries(entries.map((e) => [e, storeAmount(source[e]!)]));
  }
  return out as StoredStatement;
}

/** The monthly total of a stored group, minor units. */
export function groupTotal(statement: StoredStatement, group: StatementGroup): number {
  return Object.values(statement[group] as Record<string, StoredAmount>).reduce((sum, e) => sum + e.monthly, 0);
}

/**
 * What is left each month: income less fixed costs, flexible costs, priority and other debts'
 * payments, in minor units (negative when outgoings exceed income). The one place this is computed.
 */
export function disposableIncome(statement: StoredStatement): number {
  const outgoings = (['fixed_costs', 'flexible_costs', 'priority_debts', 'other_debts'] as const).reduce((sum, g) => sum + groupTotal(statement, g), 0);
  return groupTotal(statement, 'income') - outgoings;
}
