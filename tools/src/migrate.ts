/**
 * `npm run migrate` (and the `migrate` container image): applies pending schema migrations to
 * `DATABASE_URL`, or to the embedded local database when it is unset. Prints the applied migration
 * names and exits 0; on failure prints one line `migrate failed: <reason>` and exits 1, so a
 * deployment's migration job fails visibly and the services are not rolled out.
 */
import { createDb, poolTimeoutsFromEnv, migrateLatest, resolveDatabase } from '@dms/db';

try {
  const pgServer = await resolveDatabase();
  // A one-shot operator command, not a request path: it may wait for its first connection (a
  // container's first name lookup, a database still starting) longer than a service's pool would.
  const db = createDb(pgServer.url, 2, { ...poolTimeoutsFromEnv(), acquireTimeoutMs: 30_000 });
  try {
    const applied = await migrateLatest(db);
    process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'schema up to date\n');
  } finally {
    await db.destroy();
    await pgServer.stop();
  }
} catch (err) {
  process.stderr.write(`migrate failed: ${(err as Error).message || String(err)}\n`);
  process.exit(1);
}
