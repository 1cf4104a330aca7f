/**
 * A batch of placement rows applied with set-based SQL (docs/api.md section 16), in the caller's
 * transaction: each row is read and checked in JS first (placement.ts: the API's body schemas and
 * value checks), account numbers already earlier in the file or already the organisation's are
 * found with one query each, and the rows left are written with one multi-row statement per table
 * (customers, contact details, debts, line items, then their events through the outbox), making
 * exactly the rows and events `POST /customers`, `POST /debts` and `POST /debts/{id}/ready` make:
 * the debt is stored `prepared` at once and its `debt.created` shows it as it was before `ready`
 * (same transaction, so the same timestamps). A refused row writes nothing but its errors.
 *
 * Two imports of one organisation must not both create an account number: the batch takes a
 * transaction lock on its (tenant, organisation, lane) before looking for existing debts, and as
 * an account number's lane is a pure function of it (lanes.ts), every import placing that number
 * takes the same lock; other lanes go on at once.
 */
import type { Knex } from '@dms/db';
import { newId } from '@dms/ids';
import { recordEvents, type PendingEvent } from '../../kernel/outbox.js';
import { tenantRows } from '../../kernel/scoped.js';
import { customersResource } from '../../customers/resource.js';
import { deriveFullName, toCustomer } from '../../customers/store.js';
import { birthDateColumns } from '../../customers/birth-dates.js';
import { lastPrimaryWins } from '../../contact-details/sets.js';
import type { CustomerRow } from '../../customers/schemas.js';
import { contactDetailsResource } from '../../contact-details/resource.js';
import { toContactDetail } from '../../contact-details/store.js';
import type { ContactDetailRow } from '../../contact-details/schemas.js';
import { debtsResource } from '../../debts/resource.js';
import { toDebt } from '../../debts/store.js';
import type { DebtRow } from '../../debts/schemas.js';
import { breakdownItems, SUMMARY_COLUMNS, summaryDeltas } from '../../line-items/kinds.js';
import { lineItemsResource } from '../../line-items/resource.js';
import { checkLineItems, toLineItem } from '../../line-items/store.js';
import type { LineItemRow } from '../../line-items/schemas.js';
import { contactValues, PLACEMENT_PARAMS, readPlacement, type Placement } from './placement.js';
import { problemsOf, RowError, type Cells, type Problem, type RowContext } from './context.js';

/** The import a batch belongs to (a row's context without its row number). */
export type ImportContext = Omit<RowContext, 'rowNumber'>;

/** A stored row of an import file. */
export interface FileRow {
  row_number: number;
  cells: Cells;
}

/** Text columns `names`, for `insertSet`. */
const TEXT = (...names: string[]) => Object.fromEntries(names.map((n) => [n, 'text']));

/** A row that passed its checks, with the ids and stored values of what it makes. */
interface Planned {
  row: number;
  placement: Placement;
  customerId: string;
  debtId: string;
  details: ReturnType<typeof contactValues>;
}

/** Runs `check`; its error becomes the row's problems (an error not of the row is rethrown). */
function attempt<T>(problems: Map<number, Problem[]>, row: number, check: () => T): T | undefined {
  try {
    return check();
  } catch (err) {
    problems.set(row, problemsOf(err, PLACEMENT_PARAMS));
    return undefined;
  }
}

/** For each account number, the first row of the file that has it. */
async function firstRows(trx: Knex.Transaction, importId: string, accounts: string[]): Promise<Map<string, number>> {
  const { rows } = await trx.raw(
    `SELECT cells->>'account_number' AS account, min(row_number) AS first FROM import_rows
     WHERE import_id = ? AND cells->>'account_number' = ANY(?::text[]) GROUP BY 1`,
    [importId, accounts],
  );
  return new Map((rows as Array<{ account: string; first: number }>).map((r) => [r.account, Number(r.first)]));
}

/** The organisation's debts among `accounts` (one id per account number), after taking the batch's lane lock. */
async function existingDebts(trx: Knex.Transaction, ctx: ImportContext, lane: number, accounts: string[]): Promise<Map<string, string>> {
  await trx.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`account-lane:${ctx.tenantId}:${ctx.organisationId}:${lane}`]);
  const rows: Array<{ account_number: string; id: string }> = await tenantRows(trx, debtsResource, ctx.tenantId)
    .where('debts.organisation_id', ctx.organisationId)
    .whereRaw('debts.account_number = ANY(?::text[])', [accounts])
    .select('debts.account_number', 'debts.id');
  return new Map(rows.map((r) => [r.account_number, r.id]));
}

/**
 * Reads and checks every row, then refuses the account numbers seen earlier in the file or that
 * the organisation has, then checks the contact values: the order `POST /customers` after the
 * per-row uniqueness check would refuse them in.
 * @returns the rows to write; `problems` gets the others'
 */
async function plan(trx: Knex.Transaction, ctx: ImportContext, lane: number, rows: readonly FileRow[], problems: Map<number, Problem[]>) {
  const read: Array<{ row: number; placement: Placement }> = [];
  for (const r of rows) {
    const placement = attempt(problems, r.row_number, () => readPlacement(ctx, r.cells));
    if (placement) read.push({ row: r.row_number, placement });
  }
  if (!read.length) return [];
  const accounts = read.map((r) => r.placement.accountNumber);
  const first = await firstRows(trx, ctx.importId, accounts);
  const existing = await existingDebts(trx, ctx, lane, accounts);
  const planned: Planned[] = [];
  for (const { row, placement } of read) {
    const account = placement.accountNumber;
    const details = attempt(problems, row, () => {
      const earlier = first.get(account);
      if (earlier !== undefined && earlier < row)
        throw new RowError('account_number', 'duplicate_in_file', `account_number '${account}' is already on row ${earlier} of this file.`);
      const id = existing.get(account);
      if (id) throw new RowError('account_number', 'duplicate_account_number', `The organisation already has a debt with account_number '${account}' (${id}).`);
      const values = contactValues(placement);
      checkLineItems(placement.debt.currency, breakdownItems(placement.debt.breakdown ?? {}), (i) => `line_items[${i}]`);
      return values;
    });
    if (details) planned.push({ row, placement, details, customerId: newId(customersResource.idPrefix), debtId: newId(debtsResource.idPrefix) });
  }
  return planned;
}

/**
 * Inserts `records` into `table` with one statement, from one JSON array read with the column
 * types of `columns` (name to SQL type); `computed` gives columns an SQL expression instead.
 * @returns the stored rows
 */
async function insertSet<Row>(
  trx: Knex.Transaction,
  table: string,
  columns: Readonly<Record<string, string>>,
  records: unknown[],
  computed: Readonly<Record<string, string>> = {},
): Promise<Row[]> {
  if (!records.length) return [];
  const names = Object.keys(columns).map((c) => `"${c}"`);
  const extra = Object.keys(computed).map((c) => `"${c}"`);
  const { rows } = await trx.raw(
    `INSERT INTO ?? (${[...names, ...extra].join(', ')})
     SELECT ${[...names.map((n) => `x.${n}`), ...Object.values(computed)].join(', ')}
     FROM json_to_recordset(?::json) AS x(${Object.entries(columns)
       .map(([c, type]) => `"${c}" ${type}`)
       .join(', ')}) RETURNING *`,
    [table, JSON.stringify(records)],
  );
  return rows as Row[];
}

/** Groups rows by a key, keeping their order. */
function groupBy<T>(rows: readonly T[], key: (r: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of rows) out.set(key(r), [...(out.get(key(r)) ?? []), r]);
  return out;
}

/** Writes the planned rows: customers, their details, debts (`prepared`), line items, then every event in per-row order. */
async function write(trx: Knex.Transaction, ctx: ImportContext, planned: readonly Planned[]): Promise<void> {
  const t = ctx.tenantId;
  const customers = await insertSet<CustomerRow>(
    trx,
    customersResource.table,
    { ...TEXT('id', 'tenant_id', 'kind', 'full_name', 'first_name', 'last_name', 'date_of_birth_encrypted'), preferred_locale: 'text', metadata: 'jsonb' },
    planned.map(({ placement: { customer: c }, customerId }) => ({
      id: customerId,
      tenant_id: t,
      kind: c.kind ?? 'individual',
      full_name: deriveFullName(c),
      first_name: c.first_name ?? null,
      last_name: c.last_name ?? null,
      date_of_birth_encrypted: birthDateColumns(c.date_of_birth ?? null).date_of_birth_encrypted,
      preferred_locale: c.preferred_locale ?? null,
      metadata: c.metadata ?? {},
    })),
  );
  const details = await insertSet<ContactDetailRow>(
    trx,
    contactDetailsResource.table,
    {
      ...TEXT('id', 'tenant_id', 'customer_id', 'type', 'value'),
      address: 'jsonb',
      primary: 'boolean',
      ...TEXT('usage', 'source', 'status'),
      metadata: 'jsonb',
    },
    planned.flatMap(({ placement, customerId, details: values }) =>
      lastPrimaryWins(placement.customer.contact_details ?? []).map((d, i) => ({
        id: newId(contactDetailsResource.idPrefix),
        tenant_id: t,
        customer_id: customerId,
        type: d.type,
        value: values[i]!.value,
        address: values[i]!.address,
        primary: d.primary ?? false,
        usage: d.usage ?? null,
        source: d.source ?? 'client',
        status: d.status ?? 'unverified',
        metadata: d.metadata ?? {},
      })),
    ),
  );
  const debts = await insertSet<DebtRow>(
    trx,
    debtsResource.table,
    {
      ...TEXT('id', 'tenant_id', 'customer_id', 'organisation_id', 'account_number', 'kind', 'originator'),
      configurations: 'jsonb',
      currency: 'text',
      start_at: 'timestamptz',
      tags: 'text[]',
      metadata: 'jsonb',
      ...TEXT('status', 'status_whodunnit'),
      ...Object.fromEntries(SUMMARY_COLUMNS.map((c) => [c, 'bigint'])),
    },
    planned.map(({ placement: { debt: d }, customerId, debtId }) => ({
      id: debtId,
      tenant_id: t,
      customer_id: customerId,
      organisation_id: d.organisation_id,
      account_number: d.account_number ?? null,
      kind: d.kind ?? null,
      originator: d.originator ?? null,
      configurations: d.configurations ?? {},
      currency: d.currency,
      start_at: d.start_at ?? null,
      tags: d.tags ?? [],
      metadata: d.metadata ?? {},
      status: 'prepared',
      status_whodunnit: ctx.whodunnit,
      ...summaryDeltas(breakdownItems(d.breakdown ?? {})),
    })),
  );
  const items = await insertSet<LineItemRow>(
    trx,
    lineItemsResource.table,
    { ...TEXT('id', 'tenant_id', 'debt_id', 'kind'), amount: 'bigint', ...TEXT('currency', 'description'), metadata: 'jsonb' },
    planned.flatMap(({ placement: { debt: d }, debtId }) =>
      breakdownItems(d.breakdown ?? {}).map((item) => ({
        id: newId(lineItemsResource.idPrefix),
        tenant_id: t,
        debt_id: debtId,
        kind: item.kind,
        amount: item.amount,
        currency: d.currency,
        description: null,
        metadata: {},
      })),
    ),
    // A new item's transaction_at defaults to the time of its write, as insertLineItems does.
    { transaction_at: 'now()' },
  );
  await recordEvents(trx, t, events(planned, customers, details, debts, items));
}

/** The events of the written rows, row by row in the order the API's calls record them. */
function events(planned: readonly Planned[], customers: CustomerRow[], details: ContactDetailRow[], debts: DebtRow[], items: LineItemRow[]): PendingEvent[] {
  const bySeq = <R extends { seq: number | string }>(rows: R[]) => [...rows].sort((a, b) => Number(a.seq) - Number(b.seq));
  const customerOf = new Map(customers.map((c) => [c.id, c]));
  const debtOf = new Map(debts.map((d) => [d.id, d]));
  const detailsOf = groupBy(bySeq(details), (d) => d.customer_id);
  const itemsOf = groupBy(bySeq(items), (i) => i.debt_id);
  const out: PendingEvent[] = [];
  for (const p of planned) {
    const own = detailsOf.get(p.customerId) ?? [];
    const debt = debtOf.get(p.debtId)!;
    // loadCustomer reads the details as JSON (timestamps as text); toContactDetail reads either form alike.
    const embedded = own as unknown as CustomerRow['contact_details'];
    out.push({ resource: customersResource, type: 'customer.created', object: toCustomer({ ...customerOf.get(p.customerId)!, contact_details: embedded }) });
    for (const d of own) out.push({ resource: contactDetailsResource, type: 'customer_contact_detail.created', object: toContactDetail(d) });
    // As stored by POST /debts, before POST /debts/{id}/ready moved it in the same transaction.
    out.push({ resource: debtsResource, type: 'debt.created', object: toDebt({ ...debt, status: 'initializing', status_whodunnit: null }) });
    for (const i of itemsOf.get(p.debtId) ?? []) out.push({ resource: lineItemsResource, type: 'line_item.created', object: toLineItem(i) });
    out.push({ resource: debtsResource, type: 'debt.prepared', object: toDebt(debt) });
  }
  return out;
}

/**
 * Applies a batch of placement rows of one lane, in file order, in `trx` (see the module comment).
 * @returns the problems of each refused row, by row number (rows not in it were applied)
 */
export async function applyPlacements(trx: Knex.Transaction, ctx: ImportContext, lane: number, rows: readonly FileRow[]): Promise<Map<number, Problem[]>> {
  const problems = new Map<number, Problem[]>();
  const planned = await plan(trx, ctx, lane, rows, problems);
  if (planned.length) await write(trx, ctx, planned);
  return problems;
}
