/**
 * Income and expenditure schemas (docs/api.md section 19): the create body, the public object and
 * the stored row, built from the statement's shape (`STATEMENT_GROUPS`, `HOUSEHOLD_FIELDS`) so the
 * documented body is the one `validateStatement` checks. Amounts are integer minor units.
 */
import { CURRENCIES, StringEnum, Type, objectId, type Static, type TSchema } from '../kernel/schemas.js';
import { ENTRY_FREQUENCIES, MAX_ENTRY_AMOUNT } from './amounts.js';
import { HOUSEHOLD_FIELDS, STATEMENT_GROUPS, type StatementGroup, type StatementInput, type StoredStatement } from './statement.js';

const frequency = StringEnum(ENTRY_FREQUENCIES, { description: 'How often the amount is paid or received.' });

/** One entry as entered: minor units per `frequency`, at most `MAX_ENTRY_AMOUNT` (a larger figure is taken for a typing error). */
const EnteredEntry = Type.Object(
  {
    amount: Type.Integer({ minimum: 0, maximum: MAX_ENTRY_AMOUNT, description: `Minor units per period, 0 to ${MAX_ENTRY_AMOUNT}.` }),
    frequency,
  },
  { additionalProperties: false },
);

/** One entry as stored: the figure entered, its frequency and its monthly figure (rounded half up). */
const StoredEntry = Type.Object({
  amount: Type.Integer({ description: 'Minor units per period, as entered.' }),
  frequency,
  monthly: Type.Integer({ description: 'Minor units per month: weekly × 52 / 12, fortnightly × 26 / 12, rounded half up.' }),
});

/** An object with every entry of `group`, each of schema `entry`, all required. */
function groupSchema(group: StatementGroup, entry: TSchema, strict: boolean) {
  const properties = Object.fromEntries(STATEMENT_GROUPS[group].map((e) => [e, entry]));
  return Type.Object(properties, { ...(strict ? { additionalProperties: false } : {}), description: `${group}: ${STATEMENT_GROUPS[group].join(', ')}.` });
}

/** Every money group with entries of schema `entry`. */
function groups(entry: TSchema, strict: boolean) {
  return Object.fromEntries((Object.keys(STATEMENT_GROUPS) as StatementGroup[]).map((g) => [g, groupSchema(g, entry, strict)]));
}

const household = Type.Object(
  Object.fromEntries(
    Object.entries(HOUSEHOLD_FIELDS).map(([field, max]) => [
      field,
      Type.Integer({ minimum: field === 'adults' ? 1 : 0, maximum: max, description: `${field}, 0-${max} (adults at least 1).` }),
    ]),
  ),
  { additionalProperties: false, description: 'Adults (1-20), children (0-30) and vehicles (0-20) of the household.' },
);

/** `POST /debts/{debtId}/income_and_expenditures` body: the household and every money group, every entry required. */
export const IncomeAndExpenditureCreate = Type.Unsafe<StatementInput>(
  Type.Object({ household, ...groups(EnteredEntry, true) }, { additionalProperties: false }),
);

const totals = Type.Object(Object.fromEntries((Object.keys(STATEMENT_GROUPS) as StatementGroup[]).map((g) => [g, Type.Integer()])), {
  description: 'Monthly total of each group, minor units.',
});

/** The public income and expenditure object. */
export const IncomeAndExpenditure = Type.Unsafe<
  { id: string; object: 'income_and_expenditure'; debt: string; customer: string; currency: (typeof CURRENCIES)[number] } & StoredStatement & {
      totals: Record<StatementGroup, number>;
      disposable_income: number;
      created_by: string;
      created_at: string;
    }
>(
  Type.Object({
    id: objectId('iae'),
    object: Type.Literal('income_and_expenditure'),
    debt: Type.String({ description: 'Id of the debt the statement was given for.' }),
    customer: Type.String({ description: 'Id of the customer who gave it.' }),
    currency: StringEnum(CURRENCIES, { description: "The debt's currency, of every amount." }),
    household: Type.Object(Object.fromEntries(Object.keys(HOUSEHOLD_FIELDS).map((f) => [f, Type.Integer()]))),
    ...groups(StoredEntry, false),
    totals,
    disposable_income: Type.Integer({ description: 'Monthly income less every monthly outgoing, minor units; negative when outgoings exceed income.' }),
    created_by: Type.String({ description: '`customer:<id>` when the customer gave it in the portal, else the id of the API client that recorded it.' }),
    created_at: Type.String({ format: 'date-time' }),
  }),
);

/** A row of `income_and_expenditures` (migration 087). */
export type IncomeAndExpenditureRow = {
  id: string;
  tenant_id: string;
  seq: number;
  debt_id: string;
  customer_id: string;
  currency: (typeof CURRENCIES)[number];
  adults: number;
  children: number;
  vehicles: number;
  disposable_income: number;
  whodunnit: string;
  created_at: Date | string;
  /** The sealed money groups (sealed.ts); the group columns are null when it is set. */
  details_encrypted?: string | null;
} & { [G in keyof Omit<StoredStatement, 'household'>]: StoredStatement[G] | null };

export type IncomeAndExpenditureCreate = Static<typeof IncomeAndExpenditureCreate>;
export type IncomeAndExpenditure = Static<typeof IncomeAndExpenditure>;
