/**
 * Rules of the codebase that the compiler cannot see, checked on the sources' syntax trees
 * (TypeScript's own parser):
 *
 * - every status change goes through its machine's store: a `status` column is written (in an
 *   `insert`/`update` object, or an assignment to `<changes>.status`, or SQL `SET status`) only by
 *   the module that owns that state (docs/api.md sections 6, 8, 9 and 11);
 * - every tenant-scoped table is reached through the scoped finder (`tenantRows`, `findOwned`,
 *   `acrossTenants` of @dms/domain's kernel): a query builder is never opened on a tenant table by
 *   name, and one opened on a declaration's `table` only inserts (docs/api.md section 3).
 *
 * Each rule is also run on a snippet that breaks it, so the checks themselves are known to work.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from '@jest/globals';
import ts from 'typescript';
import { TENANT_TABLES } from '../../libs/domain/src/registry.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The TypeScript sources of the libraries, services and tools (tests, builds and migrations aside). */
function sources(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (['node_modules', 'dist', 'migrations'].includes(name)) continue;
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(relative(ROOT, path));
    }
  };
  for (const top of ['libs', 'services', 'tools']) walk(join(ROOT, top));
  return out;
}

/** A place in the sources: `file:line`, and what was found there. */
interface Finding {
  at: string;
  what: string;
}

function parse(file: string, text: string): ts.SourceFile {
  return ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
}

function at(sf: ts.SourceFile, node: ts.Node): string {
  return `${sf.fileName}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}`;
}

function visit(node: ts.Node, fn: (n: ts.Node) => void): void {
  fn(node);
  node.forEachChild((c) => visit(c, fn));
}

/** Name of the method a call invokes (`q.update(…)` → `update`), if any. */
function methodName(call: ts.CallExpression): string | undefined {
  return ts.isPropertyAccessExpression(call.expression) ? call.expression.name.text : undefined;
}

/** Writes of a column named `status` (not `status_reason` and the like). */
export function statusWrites(sf: ts.SourceFile): Finding[] {
  const found: Finding[] = [];
  visit(sf, (n) => {
    if (ts.isCallExpression(n) && ['update', 'insert'].includes(methodName(n) ?? '')) {
      for (const arg of n.arguments) {
        visit(arg, (p) => {
          if (ts.isPropertyAssignment(p) && ts.isIdentifier(p.name) && p.name.text === 'status')
            found.push({ at: at(sf, p), what: `${methodName(n)} writes status` });
        });
      }
    }
    if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
      const left = n.left;
      // `ctx.status` of Koa (the issuer's oidc-provider) is an HTTP response's status, not a stored one.
      const httpResponse = ts.isPropertyAccessExpression(left) && ts.isIdentifier(left.expression) && left.expression.text === 'ctx';
      if (ts.isPropertyAccessExpression(left) && left.name.text === 'status' && left.expression.kind !== ts.SyntaxKind.ThisKeyword && !httpResponse) {
        found.push({ at: at(sf, n), what: 'assigns .status' });
      }
    }
    if ((ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) || ts.isTemplateHead(n)) && /\bSET\b[^;]*\bstatus\s*=/i.test(n.text)) {
      found.push({ at: at(sf, n), what: 'SQL SET status' });
    }
  });
  return found;
}

/** Query builders opened on a tenant table by name, or on a declaration's `table` for anything but an insert. */
export function unscopedAccess(sf: ts.SourceFile, tenantTables: readonly string[]): Finding[] {
  const found: Finding[] = [];
  visit(sf, (n) => {
    if (!ts.isCallExpression(n) || !ts.isIdentifier(n.expression) || n.arguments.length !== 1) return;
    const arg = n.arguments[0]!;
    if (ts.isStringLiteral(arg) && tenantTables.includes(arg.text)) found.push({ at: at(sf, n), what: `${n.expression.text}('${arg.text}')` });
    if (ts.isPropertyAccessExpression(arg) && arg.name.text === 'table') {
      const parent = n.parent;
      const inserts = ts.isPropertyAccessExpression(parent) && parent.name.text === 'insert';
      if (!inserts) found.push({ at: at(sf, n), what: `${n.expression.text}(${arg.getText(sf)}) not followed by insert` });
    }
  });
  return found;
}

/**
 * Who may write a `status` column: each state's owner (its machine decides, its store writes), the
 * two states that are plain fields a client sets (contact details, invoices), and the webhook
 * delivery queue (its machine is states.ts of the same library).
 */
const STATUS_WRITERS = [
  'libs/domain/src/debts/moves.ts', // debts: DEBT_MACHINE
  'libs/domain/src/payments/store.ts', // payments: PAYMENT_MACHINE
  'libs/domain/src/payments/provider-refunds.ts', // provider refunds: inserted with the status the provider answered
  'libs/domain/src/payment-plans/store.ts', // payment plans: PLAN_MACHINE
  'libs/domain/src/payment-plans/instalments.ts', // instalments (inside a plan's schedule): INSTALMENT_MACHINE
  'libs/domain/src/contact-details/store.ts', // a field the client sets; `deleted` by DELETE
  'libs/domain/src/invoices/store.ts', // a field the client sets
  'libs/domain/src/payouts/store.ts', // payouts: PAYOUT_MACHINE (operator moves)
  'libs/domain/src/payouts/run.ts', // payouts: created `pending` by a run
  'libs/domain/src/communications/store.ts', // communications: inserted `queued`/`failed`/`received`
  'libs/domain/src/communications/moves.ts', // communications: COMMUNICATION_MACHINE
  'libs/domain/src/imports/store.ts', // imports: IMPORT_MACHINE
  'libs/domain/src/portal/arrangements.ts', // saving checkouts: SETUP_MACHINE
  'libs/domain/src/portal/promises.ts', // pay-later promises: PROMISE_MACHINE (inserted `active`)
  'libs/webhook-delivery/src/queue.ts', // deliveries: the dispatcher's moves
  'libs/webhook-delivery/src/endpoint-moves.ts', // deliveries: the API's moves
];

/** Who may open a query builder on a tenant table by name: cross-tenant infrastructure, measured as such. */
const UNSCOPED_ALLOWED = [
  'libs/domain/src/kernel/scoped.ts', // the scoped finder itself
  'libs/domain/src/tenants/store.ts', // tenants own no tenant: the one table without tenant_id
  'libs/domain/src/tenants/clock.ts', // a tenant's own clock, a column of the tenants table
  'libs/domain/src/kernel/outbox.ts', // the outbox inserts events with their tenant
  'libs/webhook-delivery/src/queue.ts', // the delivery queue works across tenants (SKIP LOCKED claims)
  'libs/webhook-delivery/src/endpoint-moves.ts', // its moves are keyed by an endpoint the caller scoped
  'libs/webhook-delivery/src/rows.ts', // attempts of deliveries the caller scoped
  'services/dispatcher/src/delivery/targets.ts', // the dispatcher's reads of claimed deliveries' endpoints and events
  'tools/src/bench/scenarios/webhooks.ts', // the benchmark's own probes of its tenant's queue
  'libs/domain/src/customers/birth-dates.ts', // the start-up sealing of legacy clear rows, across tenants
  'libs/domain/src/income-and-expenditure/sealed.ts', // the same for statements; reseals rows the caller scoped
  'libs/domain/src/kernel/reseal.ts', // re-sealing after a SECRETS_KEY rotation, across tenants
];

describe('every status change goes through its state machine', () => {
  test('no module but the owner of a state writes its status column', () => {
    const stray = sources()
      .filter((f) => !STATUS_WRITERS.includes(f))
      .flatMap((f) => statusWrites(parse(f, readFileSync(join(ROOT, f), 'utf8'))));
    expect(stray).toEqual([]);
  });

  test('the check finds a bypass (an update, an assignment, raw SQL)', () => {
    const snippet = `
      await trx('debts').where({ id }).update({ status: 'paid' });
      changes.status = 'failed';
      await trx.raw("UPDATE payments SET amount = 1, status = 'refunded' WHERE id = ?", [id]);
      await trx('debts').update({ status_reason: 'fine' });
      ctx.status = 503;`;
    expect(statusWrites(parse('snippet.ts', snippet)).map((f) => f.what)).toEqual(['update writes status', 'assigns .status', 'SQL SET status']);
  });
});

describe('every tenant-scoped table is reached through the scoped finder', () => {
  test('the registry lists the tenant tables', () => {
    expect(TENANT_TABLES).toEqual(expect.arrayContaining(['debts', 'customers', 'payments', 'customer_contact_details', 'webhook_deliveries', 'events']));
    expect(TENANT_TABLES).not.toContain('tenants');
  });

  test('no module opens a tenant table by name, and declarations are opened only to insert', () => {
    const stray = sources()
      .filter((f) => !UNSCOPED_ALLOWED.includes(f))
      .flatMap((f) => unscopedAccess(parse(f, readFileSync(join(ROOT, f), 'utf8')), TENANT_TABLES));
    expect(stray).toEqual([]);
  });

  test('the check finds a bypass', () => {
    const snippet = `
      const sum = await trx('payments').where({ debt_id }).sum('amount');
      await trx(paymentsResource.table).where({ id }).delete();
      await trx(paymentsResource.table).insert(row);`;
    expect(unscopedAccess(parse('snippet.ts', snippet), TENANT_TABLES).map((f) => f.what)).toEqual([
      "trx('payments')",
      'trx(paymentsResource.table) not followed by insert',
    ]);
  });
});
