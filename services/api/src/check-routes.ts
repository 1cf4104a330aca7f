/**
 * Proof that the API serves exactly its operation tables: builds the application (no I/O), walks
 * its router stack and compares it with the operations the OpenAPI document is generated from
 * (both come from the same tables, so this checks that `mount` registers each operation once and
 * nothing else). Run `node services/api/dist/check-routes.js` (settings from the environment, as
 * the API itself); prints `{"routes","undocumented","missing","duplicated"}` as JSON and exits 1
 * on any difference.
 */
import { resolveSecretsKey } from '@dms/config';
import { createDb } from '@dms/db';
import { SecretBox } from '@dms/secrets';
import { createLogger } from '@dms/logger';
import { createApp } from './app.js';
import { loadApiConfig } from './config.js';
import { providerRefunds } from './payments.js';
import { ALL_OPERATIONS } from './resources/index.js';
import { registeredRoutes } from './openapi/route-table.js';

const cfg = loadApiConfig();
const db = createDb(cfg.DATABASE_URL, 1);
const secretsKey = resolveSecretsKey(cfg);
const app = createApp({ db, cfg, box: new SecretBox(secretsKey), payments: providerRefunds(cfg, secretsKey) }, { log: createLogger('check-routes', 'silent') });

const routes = registeredRoutes(app).map((r) => `${r.method.toUpperCase()} ${r.path}`);
const documented = ALL_OPERATIONS.map((o) => `${o.method.toUpperCase()} ${o.path}`);
const report = {
  routes,
  undocumented: routes.filter((r) => !documented.includes(r)),
  missing: documented.filter((d) => !routes.includes(d)),
  duplicated: routes.filter((r, i) => routes.indexOf(r) !== i),
};
process.stdout.write(`${JSON.stringify(report)}\n`);
await db.destroy();
process.exit(report.undocumented.length || report.missing.length || report.duplicated.length ? 1 : 0);
