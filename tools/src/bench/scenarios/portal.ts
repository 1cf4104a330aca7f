/**
 * The customer portal's verified debt page (docs/api.md section 18), beside
 * its ceiling in the same run:
 * - data: one tenant and organisation, `BENCH_PORTAL_CUSTOMERS` customers with a date of birth and
 *   an email, each with one debt (principal, interest and fees line items, moved to `prepared`), two payments and two
 *   replies, all through the domain functions;
 * - sessions: `BENCH_CONNECTIONS` customers (10 by default) each follow a link made with
 *   `createPortalLink` (`GET /l/<token>`, the form of `GET /verify`, `POST /verify` with its CSRF
 *   token and the date of birth) and keep their session cookie;
 * - service: the portal (built, its own process, `WEB_CONCURRENCY` as the API) serving
 *   `GET /debts/<id>` to those sessions, each request the next session (round-robin);
 * - ceiling: a bare node:http server (ceiling/bare-portal.ts) running the same `customerDebt` read
 *   and rendering the same template with the portal's liquid instance, without Express, sessions,
 *   CSRF or helmet; both pages are checked equal (but for the CSRF token) before any load.
 * Targets (issue 31): ratio ≥ 0.5, p99 < 100 ms, the page with its CSS < 50 KB. There is no plan
 * offers page in the portal yet; when one exists it is measured the same way.
 */
import { createPortalLink } from '@dms/domain/portal';
import { createCustomer } from '@dms/domain/customers';
import { createDebt, moveDebt } from '@dms/domain/debts';
import { createPayment } from '@dms/domain/payments';
import { simulateReply } from '@dms/domain/communications';
import { createOrganisationWithDetails } from '@dms/domain/organisation-contact-details';
import { BARE_PORTAL, startBareServer } from '../ceiling/bare.js';
import { log, type BenchContext } from '../context.js';
import { measureHttp } from '../load.js';
import { fmt, fmtMs, fmtRatio, type Check, type ScenarioResult } from '../model.js';
import { mapPool } from '../../seed/pool.js';

const NOTE = { whodunnit: 'bench' };
/** What is replaced in both pages before they are compared: the session's CSRF token. */
const CSRF = /name="_csrf" value="[^"]*"/g;

/** A customer of the data set: its debt and date of birth. */
interface PortalCustomer {
  customerId: string;
  debtId: string;
  dob: string;
}

/** The customer's date of birth: a valid day derived from its index. */
function dobOf(i: number): string {
  return `19${50 + (i % 50)}-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`;
}

/** Creates customer `i` with its debt, line items, payments and communications. */
async function seedCustomer(ctx: BenchContext, tenantId: string, organisationId: string, i: number): Promise<PortalCustomer> {
  const { db } = ctx.stack;
  const dob = dobOf(i);
  const customer = await createCustomer(db, tenantId, {
    kind: 'individual',
    first_name: 'Portal',
    last_name: `Customer ${i}`,
    date_of_birth: dob,
    contact_details: [{ type: 'email', value: `portal${i}@example.org`, primary: true }],
  });
  const debt = await createDebt(db, tenantId, {
    customer_id: customer.id,
    organisation_id: organisationId,
    currency: 'GBP',
    account_number: `PORTAL-${i}`,
    breakdown: { principal: 120_000 + i, interest: 4_500, fees: 2_500 },
  });
  await moveDebt(db, tenantId, debt.id, 'ready', NOTE);
  for (const amount of [10_000, 7_550]) await createPayment(db, tenantId, debt.id, { amount, currency: 'GBP' }, NOTE);
  for (const text of ['Can I pay next month?', 'I will pay half now.']) await simulateReply(db, tenantId, debt.id, { subject: 'My account', text });
  return { customerId: customer.id, debtId: debt.id, dob };
}

/** The session cookie (`name=value`) a response sets, if any. */
function cookieOf(res: Response): string | undefined {
  return res.headers
    .getSetCookie()
    .find((c) => c.startsWith('portal='))
    ?.split(';')[0];
}

/**
 * Opens a link and verifies as the customer would.
 * @returns the verified session's cookie
 * @throws when a step does not answer as the portal's journey does
 */
async function verifiedSession(portalUrl: string, token: string, dob: string): Promise<string> {
  const opened = await fetch(`${portalUrl}/l/${token}`, { redirect: 'manual' });
  // The whole answer is awaited: express-session holds back its last byte until the session is
  // saved, but sends the headers before (a client going on at the headers may find no session).
  await opened.arrayBuffer();
  const pending = cookieOf(opened);
  if (opened.status !== 303 || !pending) throw new Error(`GET /l/<token>: ${opened.status}`);
  const form = await fetch(`${portalUrl}/verify`, { headers: { cookie: pending } });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1];
  if (form.status !== 200 || !csrf) throw new Error(`GET /verify: ${form.status}, no CSRF token`);
  const verified = await fetch(`${portalUrl}/verify`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: pending, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, answer: dob }).toString(),
  });
  await verified.arrayBuffer();
  const cookie = cookieOf(verified);
  if (verified.status !== 303 || !cookie) throw new Error(`POST /verify: ${verified.status}`);
  return cookie;
}

/**
 * Fetches one debt page from the portal (as `cookie`) and from the bare server and compares them.
 * @returns the page's bytes
 * @throws when either is not 200 or they differ beyond the CSRF token
 */
async function assertSameDebtPage(portalUrl: string, bareUrl: string, path: string, cookie: string): Promise<number> {
  const [p, b] = await Promise.all([fetch(`${portalUrl}${path}`, { headers: { cookie } }), fetch(`${bareUrl}${path}`)]);
  const [a, c] = await Promise.all([p.text(), b.text()]);
  if (p.status !== 200 || b.status !== 200) throw new Error(`GET ${path}: portal ${p.status}, bare ${b.status}`);
  const [x, y] = [a.replace(CSRF, ''), c.replace(CSRF, '')];
  if (x !== y) {
    let i = 0;
    while (i < x.length && x[i] === y[i]) i++;
    throw new Error(`GET ${path}: the bare page differs from the portal's at ${i}:\nportal: …${x.slice(i - 60, i + 60)}\nbare:   …${y.slice(i - 60, i + 60)}`);
  }
  return Buffer.byteLength(a);
}

/** The portal scenario. */
export async function portalScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const { stack, settings } = ctx;
  const { db } = stack;
  const n = Math.max(settings.portalCustomers, settings.connections);
  const tenant = await stack.newTenant('Bench Portal Tenant');
  const org = await createOrganisationWithDetails(db, tenant.tenantId, { name: 'Bench Portal Energy' });
  const started = process.hrtime.bigint();
  const customers = await mapPool(n, 4, (i) => seedCustomer(ctx, tenant.tenantId, org.id, i));
  await db.raw('ANALYZE customers, debts, line_items, payments, communications');
  log(`portal: ${fmt(n)} customers with a debt each in ${fmt(Number(process.hrtime.bigint() - started) / 1e9, 1)} s`);

  const portal = await stack.startService('portal', 'Portal', { WEB_CONCURRENCY: String(settings.webConcurrency) });
  const sessions = customers.slice(0, settings.connections);
  const cookies: string[] = [];
  for (const c of sessions) {
    const { token } = await createPortalLink(db, { tenantId: tenant.tenantId, customerId: c.customerId, debtId: c.debtId, ttlDays: 1 });
    cookies.push(await verifiedSession(portal.url, token, c.dob));
  }
  const bare = await startBareServer(settings, stack, BARE_PORTAL, { BENCH_PORTAL_TENANT: tenant.tenantId, BENCH_PORTAL_CUSTOMER: sessions[0]!.customerId });
  try {
    const path = `/debts/${sessions[0]!.debtId}`;
    const htmlBytes = await assertSameDebtPage(portal.url, bare.url, path, cookies[0]!);
    const css = await fetch(`${portal.url}/static/portal.css`);
    const cssBytes = (await css.arrayBuffer()).byteLength;
    if (css.status !== 200) throw new Error(`GET /static/portal.css: ${css.status}`);
    const http = { method: 'GET' as const, connections: settings.connections, ...ctx.timing() };

    log(`portal: GET /debts/<id> over ${sessions.length} verified sessions`);
    const page = await measureHttp(
      'portal.debt',
      `Portal GET /debts/<id> (${sessions.length} verified sessions)`,
      'service',
      { ...http, url: portal.url, variants: sessions.map((s, i) => ({ path: `/debts/${s.debtId}`, headers: { cookie: cookies[i]! } })) },
      portal.child.pid,
    );
    log('portal: bare node:http ceiling');
    const ceiling = await measureHttp(
      'portal.debt.bare',
      'Bare node:http: same customerDebt read and debt.liquid',
      'ceiling',
      { ...http, url: `${bare.url}${path}` },
      bare.child.pid,
    );
    const ratio = page.rps / ceiling.rps;
    const kb = (htmlBytes + cssBytes) / 1024;
    const checks: Check[] = [
      {
        what: 'Portal debt page vs bare node:http rendering it',
        value: `${fmt(page.rps)} req/s`,
        reference: `${fmt(ceiling.rps)} req/s`,
        ratio: fmtRatio(ratio),
        target: '≥ 0.5×',
        met: ratio >= 0.5,
      },
      {
        what: `Portal debt page p99 at ${settings.connections} sessions`,
        value: fmtMs(page.p99),
        reference: `${fmtMs(ceiling.p99)} (bare)`,
        ratio: fmtRatio(page.p99 / ceiling.p99),
        target: '< 100 ms',
        met: page.p99 < 100,
      },
      {
        what: 'Portal debt page transferred with its CSS',
        value: `${fmt(kb, 1)} KB`,
        reference: `HTML ${fmt(htmlBytes)} B + CSS ${fmt(cssBytes)} B, no JavaScript`,
        ratio: '',
        target: '< 50 KB',
        met: kb < 50,
      },
    ];
    for (const c of checks) log(`portal: ${c.what}: ${c.value} (${c.target}) ${c.met ? 'pass' : 'FAIL'}`);
    return {
      name: 'portal',
      title: 'Customer portal: the verified debt page',
      runs: [page, ceiling],
      checks,
      notes: [
        `Data: ${fmt(n)} customers of one tenant, each with a date of birth, an email and one debt (three line items, two payments, two replies), ` +
          `made through the domain functions. ${sessions.length} customers opened a link made by \`createPortalLink\` and verified with their date ` +
          'of birth (CSRF token from the form); each request of the load is the next session (cookie) asking for its own debt, so every one ' +
          'reads and rolls its session in PostgreSQL (express-session, `rolling`). The ceiling is a bare node:http server running the same ' +
          "`customerDebt` read and rendering `debt.liquid` with the portal's liquid instance for one customer, without Express, session, CSRF " +
          "or helmet; its page equals the portal's but for the CSRF token (checked before the load). Page size: the HTML and `/static/portal.css`, " +
          'uncompressed; the portal serves no JavaScript. The portal has no plan offers page yet, so only the debt page is measured.',
      ],
    };
  } finally {
    await bare.stop();
    await stack.stopExtra();
  }
}
