/**
 * `npm run migrate`: applies pending schema migrations to `DATABASE_URL`, or to the embedded local
 * database when it is unset. Prints the applied migration names.
 */
import { createDb, migrateLatest, resolveDatabase } from '@dms/db';

const pgServer = await resolveDatabase();
const db = createDb(pgServer.url, 2);
try {
  const applied = await migrateLatest(db);
  process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'schema up to date\n');
} finally {
  await db.destroy();
  await pgServer.stop();
}
