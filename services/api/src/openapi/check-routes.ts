/**
 * Drift check between the routes and the documentation: builds the application (no I/O), walks
 * its router stack and compares it with the operation registry the OpenAPI document is generated
 * from. Run `node services/api/dist/openapi/check-routes.js` (settings from the environment, as
 * the API itself); prints `{"routes","undocumented","missing","duplicated"}` as JSON and exits 1 on any drift.
 */
import { resolveSecretsKey } from '@dms/config';
import { createDb } from '@dms/db';
import { SecretBox } from '@dms/secrets';
import { createLogger } from '@dms/logger';
import { createApp } from '../app.js';
import { loadApiConfig } from '../config.js';
import { OPERATIONS } from './operations.js';
import { registeredRoutes } from './route-table.js';

const cfg = loadApiConfig();
const db = createDb(cfg.DATABASE_URL, 1);
const app = createApp({ db, cfg, box: new SecretBox(resolveSecretsKey(cfg)) }, { log: createLogger('check-routes', 'silent') });

const routes = registeredRoutes(app).map((r) => `${r.method.toUpperCase()} ${r.path}`);
const documented = OPERATIONS.map((o) => `${o.method.toUpperCase()} ${o.path}`);
const report = {
  routes,
  undocumented: routes.filter((r) => !documented.includes(r)),
  missing: documented.filter((d) => !routes.includes(d)),
  duplicated: routes.filter((r, i) => routes.indexOf(r) !== i),
};
process.stdout.write(`${JSON.stringify(report)}\n`);
await db.destroy();
process.exit(report.undocumented.length || report.missing.length || report.duplicated.length ? 1 : 0);
