/**
 * Sessions of the portal (docs/api.md section 18): express-session stored in PostgreSQL
 * (connect-pg-simple, table `portal_sessions`), cookie HttpOnly, SameSite=Lax, and Secure with a
 * `__Host-` name when PORTAL_BASE_URL is https; 15 minutes idle (rolling), 12 hours at most from
 * verification (`verifiedAt`). CSRF tokens (csrf-sync) live in the session; every POST carries one.
 */
import session from 'express-session';
import pg from 'pg';
import connectPg from 'connect-pg-simple';
import { csrfSync } from 'csrf-sync';
import type { NextFunction, Request, Response } from 'express';

/** Idle lifetime of a session, milliseconds. */
export const IDLE_MS = 15 * 60 * 1000;
/** Longest life of a verified session, milliseconds. */
export const ABSOLUTE_MS = 12 * 60 * 60 * 1000;

declare module 'express-session' {
  interface SessionData {
    /** The link being verified (before verification). */
    pendingLinkId: string;
    /** Set on verification: the tenant, customer and link the session may see. */
    tenantId: string;
    customerId: string;
    linkId: string;
    verifiedAt: number;
    /** A debt's page (`/debts/<deb_id>`) opened before verification, where verifying returns to if it is the customer's (routes/link.ts). */
    returnTo: string;
    /** The language the customer chose with `?lang=` (i18n.ts). */
    lang: string;
    /** A dispute or question between its form and its check page (routes/contact.ts). */
    contactDraft: { debtId: string; kind: 'dispute' | 'question'; reason: string; text: string };
    /** The amount chosen on the pay page (minor units) and as typed, before check your answers. */
    pay: { debtId: string; amount: number; display: string };
    /** The offer chosen (a plan's id or `pay_later`) and its date, before check your answers (routes/offers.ts). */
    arrange: { debtId: string; choice: string; date?: string };
    /** The income and expenditure answers between pages (routes/statement.ts). */
    statement: import('./statement-form.js').StatementDraft;
    /** The statement just stored: its id, monthly disposable income (minor units) and where to go next. */
    statementDone: { debtId: string; id: string; disposable: number; currency: string; returnTo: string };
    /** The plan the customer proposes (routes/propose.ts), until it is sent. */
    proposeDraft: { debtId: string; amount: number; display: string; frequency: string; start_on: string };
  }
}

/** The cookie's name: `__Host-portal` over https, `portal` otherwise. */
export function cookieName(baseUrl: string): string {
  return baseUrl.startsWith('https:') ? '__Host-portal' : 'portal';
}

/** The session middleware over `databaseUrl`, with `secret` signing the cookie; `close` ends its pool. */
export function sessions(databaseUrl: string, baseUrl: string, secret: string) {
  const PgStore = connectPg(session);
  const secure = baseUrl.startsWith('https:');
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  const store = new PgStore({ pool, tableName: 'portal_sessions', createTableIfMissing: false, pruneSessionInterval: 600 });
  const middleware = session({
    store,
    name: cookieName(baseUrl),
    secret,
    resave: false,
    rolling: true,
    saveUninitialized: false,
    cookie: { httpOnly: true, sameSite: 'lax', secure, path: '/', maxAge: IDLE_MS },
  });
  return {
    middleware,
    close: async () => {
      store.close();
      await pool.end();
    },
  };
}

/**
 * Writes the session before any redirect is sent: express-session otherwise stores it while the
 * 303 is already on its way, and a browser that follows the redirect at once can arrive before
 * its session (a `/l/<token>` → `/verify` that finds no link).
 */
export function saveBeforeRedirect(req: Request, res: Response, next: NextFunction): void {
  const redirect = res.redirect.bind(res) as (...args: unknown[]) => void;
  res.redirect = (...args: unknown[]) => {
    if (!req.session) return redirect(...args);
    req.session.save((err: unknown) => (err ? next(err) : redirect(...args)));
  };
  next();
}

/** Ends sessions older than ABSOLUTE_MS since verification. */
export function absoluteLimit(req: Request, _res: Response, next: NextFunction): void {
  if (req.session?.verifiedAt && Date.now() - req.session.verifiedAt > ABSOLUTE_MS) {
    req.session.destroy(() => next());
    return;
  }
  next();
}

/** csrf-sync: the token travels in the form field `_csrf`. */
export const csrf = csrfSync({ getTokenFromRequest: (req) => (req.body as Record<string, string> | undefined)?._csrf });
