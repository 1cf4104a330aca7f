/**
 * Databases of a PostgreSQL server, as opposed to the schema inside one: created on demand by the
 * local commands (the embedded server, embedded.ts) and by the tests' global setup.
 */
import pg from 'pg';

/**
 * Creates database `name` on the server of `adminUrl` if it does not exist yet.
 * @param adminUrl a connection string to any database of the server (e.g. `postgres`)
 * @throws the connection's or the statement's error (e.g. ECONNREFUSED, insufficient privilege)
 */
export async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
  } finally {
    await client.end();
  }
}
