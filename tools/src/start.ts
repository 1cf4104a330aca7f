/**
 * `npm start`: the whole system on one machine. Uses `DATABASE_URL`, or starts the embedded
 * PostgreSQL under `.data/pg` when it is unset; applies migrations; then runs the issuer (4000),
 * the API (3000) and the dispatcher (3001) until Ctrl-C or SIGTERM, which stops them all.
 */
import { createDb, migrateLatest, resolveDatabase } from '@dms/db';
import { startService, type RunningService, type ServiceName } from './processes.js';

const say = (line: string) => process.stderr.write(`[start] ${line}\n`);

const pgServer = await resolveDatabase();
say(pgServer.owned ? `embedded PostgreSQL running on ${new URL(pgServer.url).host}` : `using database ${new URL(pgServer.url).host}`);
const db = createDb(pgServer.url, 1);
const applied = await migrateLatest(db);
await db.destroy();
say(applied.length ? `migrations applied: ${applied.join(', ')}` : 'schema up to date');

const env: Record<string, string> = { DATABASE_URL: pgServer.url, NODE_ENV: process.env.NODE_ENV ?? 'development' };
const plan: Array<[ServiceName, number]> = [
  ['auth', Number(process.env.AUTH_PORT ?? 4000)],
  ['api', Number(process.env.API_PORT ?? 3000)],
  ['dispatcher', Number(process.env.DISPATCHER_PORT ?? 3001)],
];
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
