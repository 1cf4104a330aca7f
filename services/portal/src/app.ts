/**
 * The portal's Express application (docs/api.md section 18): helmet with a strict CSP (no inline
 * script or style; CSS is `/static/portal.css`), `Referrer-Policy: no-referrer`,
 * `Cache-Control: no-store`, sessions in PostgreSQL, CSRF on every POST, `/healthz`, `/readyz`,
 * `/metrics`, then one router per journey (routes/*.ts). A new journey is a new router added here.
 */
import { fileURLToPath } from 'node:url';
import express, { type NextFunction, type Request, type Response } from 'express';
import helmet from 'helmet';
import { isReachable, poolUsage, type Knex } from '@dms/db';
import type { Logger } from '@dms/logger';
import type { RedisConnection } from '@dms/rate-limit';
import { createServiceMetrics, metricsText } from '@dms/metrics';
import { absoluteLimit, csrf, saveBeforeRedirect, sessions } from './session.js';
import { render } from './render.js';
import { debtPageBrand } from './brand.js';
import { isLanguage } from './i18n.js';
import { linkRoutes } from './routes/link.js';
import { debtRoutes } from './routes/debts.js';
import { contactRoutes } from './routes/contact.js';
import { payRoutes } from './routes/pay.js';
import { callbackRoutes, checkoutRoutes, returnRoutes } from './routes/checkout.js';
import { planRoutes } from './routes/plan.js';
import { circumstancesRoutes } from './routes/circumstances.js';
import { preferencesRoutes } from './routes/preferences.js';
import { offersRoutes } from './routes/offers.js';
import { authorityRoutes } from './routes/authority.js';
import { isLocalProvider, localCallbackSecret, localProvider, type PaymentProvider } from '@dms/payments';
import { statementRoutes } from './routes/statement.js';
import { proposeRoutes } from './routes/propose.js';
import { portalRateLimits, type PortalRateLimits } from './rate-limit.js';
import { PORTAL_RATE_LIMIT_DEFAULTS } from './config.js';

/** What the application needs. */
export interface PortalDeps {
  db: Knex;
  log: Logger;
  databaseUrl: string;
  baseUrl: string;
  sessionSecret: string;
  trustProxy?: string | boolean | number;
  /** The payment provider (`PAYMENT_PROVIDER`; default: `local` with a callback secret derived from `sessionSecret`). */
  payments?: PaymentProvider;
  /** Budgets of rate-limit.ts (default: its defaults, trusting loopback proxies). */
  rateLimits?: PortalRateLimits;
  /** Redis holding those budgets for every portal instance (`REDIS_URL`); in memory, per process, when absent. */
  redis?: RedisConnection;
}

/** Builds the application (its `close()` ends the session store's pool); `isDraining` makes `/readyz` answer 503 while shutting down. */
export function buildPortal(deps: PortalDeps, isDraining: () => boolean = () => false) {
  const app = express();
  const payments = deps.payments ?? localProvider(localCallbackSecret(deps.sessionSecret));
  const metrics = createServiceMetrics('portal', () => poolUsage(deps.db));
  app.disable('x-powered-by');
  if (deps.trustProxy !== undefined) app.set('trust proxy', deps.trustProxy);
  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  app.get('/readyz', async (_req, res) => void res.status(!isDraining() && (await isReachable(deps.db)) ? 200 : 503).json({}));
  app.get('/metrics', async (_req, res) => void res.type('text/plain').send(await metricsText(metrics.registry)));
  app.use((req, res, next) => {
    const end = metrics.httpDuration.startTimer({ method: req.method });
    res.on('finish', () => end({ route: (req.route?.path as string | undefined) ?? 'unmatched', status: String(res.statusCode) }));
    next();
  });
  app.use(
    helmet({
      contentSecurityPolicy: {
        directives: {
          defaultSrc: ["'none'"],
          styleSrc: ["'self'"],
          imgSrc: ["'self'", 'https:'],
          // The pay check form's redirect goes to Stripe's hosted checkout (browsers apply form-action to it).
          formAction: ["'self'", ...(payments.name === 'stripe' ? ['https://checkout.stripe.com'] : [])],
          frameAncestors: ["'none'"],
          baseUri: ["'none'"],
        },
      },
      referrerPolicy: { policy: 'no-referrer' },
    }),
  );
  app.use((_req, res, next) => {
    res.set('Cache-Control', 'no-store');
    next();
  });
  app.use(callbackRoutes(deps.db, payments, deps.log));
  app.use('/static', express.static(fileURLToPath(new URL('../public', import.meta.url)), { index: false }));
  app.use(express.urlencoded({ extended: false, limit: '16kb' }));
  const store = sessions(deps.databaseUrl, deps.baseUrl, deps.sessionSecret);
  app.use(store.middleware);
  app.use(saveBeforeRedirect);
  app.use(absoluteLimit);
  // `?lang=` on any page chooses the language for the rest of the session (i18n.ts).
  app.use((req, _res, next) => {
    if (isLanguage(req.query.lang)) req.session.lang = req.query.lang;
    next();
  });
  app.use(portalRateLimits(deps.rateLimits ?? { ...PORTAL_RATE_LIMIT_DEFAULTS, trustProxy: 'loopback' }, { redis: deps.redis, log: deps.log }));
  app.use(csrf.csrfSynchronisedProtection);
  // Every page about one of the customer's debts is headed by its organisation's brand (brand.ts).
  app.use('/debts/:id', debtPageBrand(deps.db));
  app.use(linkRoutes(deps.db));
  app.use(debtRoutes(deps.db));
  app.use(contactRoutes(deps.db));
  app.use(payRoutes(deps.db, payments));
  app.use(isLocalProvider(payments) ? checkoutRoutes(deps.db, payments) : returnRoutes(deps.db, payments));
  app.use(planRoutes(deps.db));
  app.use(circumstancesRoutes(deps.db));
  app.use(preferencesRoutes(deps.db));
  app.use(offersRoutes(deps.db, payments), authorityRoutes(deps.db));
  app.use(statementRoutes(deps.db));
  app.use(proposeRoutes(deps.db));
  app.use((req, res) => void render(req, res, 'not-found', {}, 404));
  app.use((err: Error & { code?: string }, req: Request, res: Response, _next: NextFunction) => {
    if (err.code === 'EBADCSRFTOKEN') return void render(req, res, 'expired-form', {}, 403);
    deps.log.error({ err: { name: err.name, message: err.message } }, 'portal request failed');
    void res.status(500).type('text/plain').send('Something went wrong. Please try again later.');
  });
  return Object.assign(app, { close: store.close });
}
