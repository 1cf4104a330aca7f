/**
 * The ceiling of the portal's debt page: a bare node:http server (no Express, session, CSRF check
 * or helmet) that answers `GET /debts/<id>` with the same domain read (`customerDebt` of
 * @dms/domain/portal, through knex as the portal does) rendered by the portal's own liquid
 * instance and template (`liquid` of @dms/portal/render, `debt.liquid` in its layout, en-GB), for
 * the one customer named by its environment, and `GET /readyz`. Anything else is 404.
 *
 * The page carries a CSRF token of the portal's length (csrf-sync: 128 random bytes in hex) so the
 * bytes match the portal's. Started by bare.ts (`startBareServer` with this script). Environment:
 * DATABASE_URL, PORT, WEB_CONCURRENCY (workers; above 1 node:cluster forks them), DATABASE_POOL_MAX,
 * BENCH_PORTAL_TENANT, BENCH_PORTAL_CUSTOMER. Sends `ready` to its parent once every worker listens.
 */
import cluster from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { createDb } from '@dms/db';
import { customerDebt } from '@dms/domain/portal';
import { LANGUAGES } from '@dms/portal/i18n';
import { liquid } from '@dms/portal/render';

const env = process.env;
const workers = Math.max(1, Number(env.WEB_CONCURRENCY ?? 1));

/** One serving process. */
async function worker(): Promise<void> {
  const db = createDb(env.DATABASE_URL!, Number(env.DATABASE_POOL_MAX ?? 10));
  const tenantId = env.BENCH_PORTAL_TENANT!;
  const customerId = env.BENCH_PORTAL_CUSTOMER!;
  const csrf = randomBytes(128).toString('hex');
  const locale = LANGUAGES[0];
  const languages = LANGUAGES.filter((l) => l !== locale);
  const server = createServer((req, res) => {
    const send = (status: number, body: string, type = 'text/plain') => {
      res.writeHead(status, { 'content-type': `${type}; charset=utf-8`, 'content-length': Buffer.byteLength(body) });
      res.end(body);
    };
    const id = /^\/debts\/([^/?]+)$/.exec(req.url ?? '')?.[1];
    if (req.url === '/readyz') return send(200, 'ok');
    if (req.method !== 'GET' || !id) return send(404, 'not found');
    customerDebt(db, tenantId, customerId, decodeURIComponent(id))
      .then(async (view) => {
        if (!view) return send(404, 'not found');
        send(200, await liquid.renderFile('debt', { locale, languages, signedIn: true, csrf, ...view }), 'text/html');
      })
      .catch((err: Error) => {
        process.stderr.write(`bare portal: ${err.stack}\n`);
        if (!res.headersSent) send(500, 'error');
      });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(Number(env.PORT), '127.0.0.1', resolve));
  process.once('SIGTERM', () => {
    server.closeAllConnections();
    server.close();
    void db.destroy().finally(() => process.exit(0));
  });
}

if (workers > 1 && cluster.isPrimary) {
  let listening = 0;
  let stopping = false;
  for (let i = 0; i < workers; i++) cluster.fork();
  cluster.on('listening', () => {
    if (++listening === workers) process.send?.('ready');
  });
  cluster.on('exit', (w, code) => {
    if (!stopping) process.stderr.write(`bare portal: worker ${w.process.pid} exited with ${code}\n`);
    if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
  });
  process.once('SIGTERM', () => {
    stopping = true;
    for (const w of Object.values(cluster.workers ?? {})) w?.kill('SIGTERM');
  });
} else {
  await worker();
  if (cluster.isPrimary) process.send?.('ready');
}
