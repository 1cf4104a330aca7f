/**
 * `npm run seed [-- --organisations 20 --customers 2000 --debts 5000 --seed N --concurrency 8
 * --tenant-name NAME]`: creates a demo
 * tenant and an OAuth client, then loads organisations, customers and debts (with lifecycle moves
 * and payments) through the API's own validation and the domain library, so events, list counters
 * and summaries are written exactly as `POST /organisations`, `/customers`, `/debts` and the debt
 * actions write them. Part of the debts left `prepared` then get the money of docs/api.md
 * sections 8 and 9 (seed/money.ts): invoices with line items, pending, failed and refunded
 * payments, and payment plans in every status; then every organisation is paid out and payouts
 * are left in every status (seed/payouts.ts, docs/api.md section 14). Uses `DATABASE_URL`, or the embedded local database when it is unset.
 *
 * Progress goes to stderr; stdout gets one JSON object at the end: the client credentials
 * (`client_id`, `client_secret`, `audience`, `token_url`), the tenant and the counts loaded.
 */
import { parseArgs } from 'node:util';
import { fakerEN_GB } from '@faker-js/faker';
import { commonSpec, loadConfig, resolveSecretsKey } from '@dms/config';
import { createDb, migrateLatest, resolveDatabase, type Knex } from '@dms/db';
import { SecretBox } from '@dms/secrets';
import { createClient } from '@dms/auth/domain';
import { usePersonalDataBox, validator } from '@dms/domain/kernel';
import { createTenant } from '@dms/domain/tenants';
import { OrganisationCreate } from '@dms/domain/organisations';
import { createOrganisationWithDetails } from '@dms/domain/organisation-contact-details';
import { CustomerCreate, createCustomer } from '@dms/domain/customers';
import { DebtCreate, createDebt, moveDebt, type Debt } from '@dms/domain/debts';
import { PaymentCreate, createPayment } from '@dms/domain/payments';
import { fakeCustomer, fakeDebt, fakeDebtHistory, fakeOrganisation, type DebtStep } from './seed/fake-data.js';
import { breakOverduePlans, MONEY_STORIES, tellMoneyStory } from './seed/money.js';
import { mapPool } from './seed/pool.js';
import { seedPayouts } from './seed/payouts.js';
import { seedWorkedDebts } from './seed/engine.js';

/** `whodunnit` of the seed's status moves. */
const SEED_ACTOR = 'seed';

const say = (line: string) => process.stderr.write(`[seed] ${line}\n`);

/** Validators of the API's create bodies: seeded data passes exactly the checks API callers pass. */
const validate = {
  organisation: validator<OrganisationCreate>(OrganisationCreate),
  customer: validator<CustomerCreate>(CustomerCreate),
  debt: validator<DebtCreate>(DebtCreate),
  payment: validator<PaymentCreate>(PaymentCreate),
};

function count(values: Record<string, string | undefined>, name: string, fallback: number, min: number): number {
  const raw = values[name];
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new Error(`--${name} must be an integer >= ${min}`);
  return Number(raw);
}

/**
 * Applies one step of a debt's history through the domain functions behind the debt actions and
 * `POST /debts/{id}/payments`.
 * @returns the debt as it is after the step (the balance matters to the next payment)
 */
async function applyStep(db: Knex, tenantId: string, debt: Debt, step: DebtStep): Promise<Debt> {
  if ('move' in step) return moveDebt(db, tenantId, debt.id, step.move, { reason: step.reason, whodunnit: SEED_ACTOR });
  const remaining = debt.summary.amount_remaining;
  const amount = step.pay.share >= 1 ? remaining : Math.max(1, Math.round(remaining * step.pay.share));
  await createPayment(
    db,
    tenantId,
    debt.id,
    validate.payment({ amount, currency: debt.currency, transaction_at: step.pay.at, transaction_ref: step.pay.ref }),
    { whodunnit: SEED_ACTOR },
  );
  return { ...debt, summary: { ...debt.summary, amount_paid: debt.summary.amount_paid + amount, amount_remaining: remaining - amount } };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      organisations: { type: 'string' },
      customers: { type: 'string' },
      debts: { type: 'string' },
      'tenant-name': { type: 'string' },
      seed: { type: 'string' },
      concurrency: { type: 'string' },
    },
    strict: true,
  });
  const sizes = {
    organisations: count(values, 'organisations', 20, 1),
    customers: count(values, 'customers', 2000, 1),
    debts: count(values, 'debts', 5000, 0),
  };
  const concurrency = count(values, 'concurrency', 8, 1);
  const faker = fakerEN_GB;
  if (values.seed !== undefined) faker.seed(count(values, 'seed', 0, 0));

  const cfg = loadConfig(commonSpec);
  const box = new SecretBox(resolveSecretsKey(cfg));
  usePersonalDataBox(box);
  const pgServer = await resolveDatabase();
  const db = createDb(pgServer.url, concurrency);
  const started = Date.now();
  try {
    await migrateLatest(db);
    const tenant = await createTenant(db, values['tenant-name'] ?? `${faker.company.name().replace(/[,]/g, '')} Collections Ltd`);
    const client = await createClient(db, box, { issuer: cfg.AUTH_ISSUER, audience: cfg.API_AUDIENCE }, { tenantId: tenant.id, name: 'seed' });
    say(`tenant ${tenant.id} (${tenant.name}), client ${client.client_id}`);

    // Inputs are drawn up front and validated with the API's own create schemas.
    const organisationInputs = Array.from({ length: sizes.organisations }, () => validate.organisation(fakeOrganisation(faker)));
    const organisations = await mapPool(sizes.organisations, concurrency, (i) => createOrganisationWithDetails(db, tenant.id, organisationInputs[i]!));
    say(`${organisations.length} organisations`);

    const customerInputs = Array.from({ length: sizes.customers }, () => validate.customer(fakeCustomer(faker)));
    const customers = await mapPool(sizes.customers, concurrency, (i) => createCustomer(db, tenant.id, customerInputs[i]!));
    say(`${customers.length} customers`);

    const customerIds = customers.map((c) => c.id);
    const organisationIds = organisations.map((o) => o.id);
    const plans = Array.from({ length: sizes.debts }, () => ({
      input: validate.debt(fakeDebt(faker, customerIds, organisationIds)),
      history: fakeDebtHistory(faker),
    }));
    let payments = plans.reduce((n, p) => n + p.history.filter((s) => 'pay' in s).length, 0);
    const created = new Array<Debt>(sizes.debts);
    // One transaction per object, as one API request each: concurrent like API clients, which
    // overlaps round trips (the tenant's counter rows serialise only the end of each transaction).
    await mapPool(
      sizes.debts,
      concurrency,
      async (i) => {
        let debt = await createDebt(db, tenant.id, plans[i]!.input);
        for (const step of plans[i]!.history) debt = await applyStep(db, tenant.id, debt, step);
        created[i] = debt;
      },
      (done) => {
        if (done % 1000 === 0) say(`${done} debts`);
      },
    );
    say(`${sizes.debts} debts, ${payments} payments in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    // Half of the debts made ready and left alone (at least one per story) get a money story.
    const ready = created.filter((_, i) => plans[i]!.history.length === 1 && 'move' in plans[i]!.history[0]! && plans[i]!.history[0].move === 'ready');
    const told = ready.slice(0, Math.max(Math.min(ready.length, MONEY_STORIES.length), Math.round(ready.length / 2)));
    const stories = told.map((_, i) => MONEY_STORIES[i % MONEY_STORIES.length]!);
    // One at a time: faker draws stay in a fixed order, so `--seed` reproduces the same data.
    const storyPayments = await mapPool(told.length, 1, (i) => tellMoneyStory(db, tenant.id, told[i]!, stories[i]!, faker, { whodunnit: SEED_ACTOR }));
    payments += storyPayments.reduce((a, b) => a + b, 0);
    const broken = await breakOverduePlans(db, tenant.id);
    say(`${told.length} debts with invoices, payment outcomes and plans (${broken} plans broken by the worker's change)`);
    const payouts = await seedPayouts(
      db,
      tenant.id,
      organisations.map((o) => o.id),
    );
    say(
      `payouts: ${Object.entries(payouts)
        .map(([status, n]) => `${n} ${status}`)
        .join(', ')}`,
    );
    const worked = await seedWorkedDebts(db, tenant.id, () => validate.debt(fakeDebt(faker, customerIds, organisationIds)), SEED_ACTOR);
    say(
      `${worked.debts} debts in every status the engine, operators and tenants reach, ${worked.communications} communications of every channel and direction`,
    );

    process.stdout.write(
      `${JSON.stringify({
        client_id: client.client_id,
        client_secret: client.client_secret,
        audience: client.audience,
        token_url: client.token_url,
        scope: client.scope,
        tenant_id: tenant.id,
        tenant_name: tenant.name,
        loaded: {
          organisations: sizes.organisations,
          customers: sizes.customers,
          debts: sizes.debts,
          payments,
          money_stories: told.length,
          payouts,
          worked_debts: worked.debts,
          communications: worked.communications,
        },
      })}\n`,
    );
  } finally {
    await db.destroy();
    await pgServer.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`[seed] failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
