/**
 * `npm start`: the whole system on one machine. Uses `DATABASE_URL`, or starts the embedded
 * PostgreSQL under `.data/pg` on `EMBEDDED_PG_PORT` (54320) when it is unset, and if that server
 * cannot start prints PostgreSQL's reason and exits 1; applies migrations; then runs the issuer (4000),
 * the API (3000), the dispatcher (3001) and the worker (3002) until Ctrl-C or SIGTERM, which stops them all.
 */
import { embeddedPostgresSpec, loadConfig } from '@dms/config';
import { createDb, migrateLatest, resolveDatabase, type LocalPostgres } from '@dms/db';
import { portIsFree, startService, type RunningService, type ServiceName } from './processes.js';

const say = (line: string) => process.stderr.write(`[start] ${line}\n`);

const plan: Array<[ServiceName, number]> = [
  ['auth', Number(process.env.AUTH_PORT ?? 4000)],
  ['api', Number(process.env.API_PORT ?? 3000)],
  ['dispatcher', Number(process.env.DISPATCHER_PORT ?? 3001)],
  ['worker', Number(process.env.WORKER_PORT ?? 3002)],
];

// Every port is checked before anything starts: a second `npm start` must stop here with the
// reason and the setting that moves it, not announce "ready" and then lose a service to EADDRINUSE.
const ports: Array<[what: string, setting: string, port: number]> = [
  ...plan.map(([name, port]): [string, string, number] => [name, `${name.toUpperCase()}_PORT`, port]),
  ...(process.env.DATABASE_URL
    ? []
    : [['embedded PostgreSQL', 'EMBEDDED_PG_PORT', loadConfig(embeddedPostgresSpec).EMBEDDED_PG_PORT] as [string, string, number]]),
];
for (const [what, setting, port] of ports) {
  if (!(await portIsFree(port))) {
    say(
      `port ${port} for the ${what} (${setting}) is already in use (another \`npm start\`? stop it with Ctrl-C first, or set ${setting} to a free port); nothing was started`,
    );
    process.exit(1);
  }
}

let pgServer: LocalPostgres;
try {
  pgServer = await resolveDatabase();
} catch (err) {
  // PostgreSQL's own lines (EmbeddedPostgresError), e.g. a stale socket lock file in /tmp.
  say(`${(err as Error).message}\n[start] nothing was started`);
  process.exit(1);
}
say(pgServer.owned ? `embedded PostgreSQL running on ${new URL(pgServer.url).host}` : `using database ${new URL(pgServer.url).host}`);
const db = createDb(pgServer.url, 1);
const applied = await migrateLatest(db);
await db.destroy();
say(applied.length ? `migrations applied: ${applied.join(', ')}` : 'schema up to date');

const env: Record<string, string> = { DATABASE_URL: pgServer.url, NODE_ENV: process.env.NODE_ENV ?? 'development' };
const running: RunningService[] = [];
let stopping = false;

async function stopAll(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    say('stopping');
    await Promise.all(running.map((s) => s.stop()));
    await pgServer.stop();
  }
  process.exit(code);
}
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));

try {
  for (const [name, port] of plan) {
    const service = await startService(name, env, port, 'inherit');
    running.push(service);
    service.child.once('exit', (code) => {
      if (!stopping) {
        say(`${name} exited with code ${code}; stopping everything`);
        void stopAll(1);
      }
    });
    say(`${name} ready at ${service.url}`);
  }
} catch (err) {
  say(`start failed: ${(err as Error).message}`);
  await stopAll(1);
}
say(`all services ready: ${running.map((s) => `${s.name} ${s.url}`).join(', ')} (Ctrl-C stops)`);
