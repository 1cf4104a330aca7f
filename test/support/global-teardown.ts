/**
 * Jest global teardown: stops the services, drops the test database, stops the embedded server.
 */
import pg from 'pg';
import type { TestGlobals } from './global-setup.js';

export default async function globalTeardown(): Promise<void> {
  const g = (globalThis as { __DMS__?: TestGlobals }).__DMS__;
  if (!g) return;
  await Promise.all(g.services.map((s) => s.stop()));
  const client = new pg.Client({ connectionString: g.adminUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${g.database}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
  await g.stopPg();
}
