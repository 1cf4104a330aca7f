/**
 * Hot reads as prepared statements (the list pages of docs/api.md section 4): the statement Knex
 * builds is sent with a `name`, so each pooled connection parses and plans it once and then only
 * binds and executes it, as `pgbench -M prepared` does. Names are given per distinct SQL text, at
 * most MAX_NAMED of them per process (a statement's text never embeds values, so list shapes are
 * few; beyond the cap, a statement runs unnamed as before rather than growing every connection's
 * prepared statements without bound). Behind a transaction-mode pooler (`DATABASE_POOLER=transaction`)
 * every statement is sent unnamed: the next transaction may run on a server connection that never
 * saw the name (deploy/README.md, "High availability").
 */
import { namedStatementsAllowed, type CustomTypesConfig, type Knex } from '@dms/db';

/** Distinct statement texts that get a name (none behind a transaction-mode pooler). */
const MAX_NAMED = namedStatementsAllowed() ? 200 : 0;
const names = new Map<string, string>();
let issued = 0;

function nameOf(sql: string): string | undefined {
  let name = names.get(sql);
  if (name === undefined && names.size < MAX_NAMED) names.set(sql, (name = `dms_${++issued}`));
  return name;
}

/**
 * PostgreSQL refuses to run a prepared `select *` whose columns changed since it was prepared (a
 * migration added one: "cached plan must not change result type", SQLSTATE 0A000).
 */
const isStalePlan = (err: unknown) => (err as { code?: unknown }).code === '0A000' && /cached plan/.test(String((err as Error).message));

type PooledConnection = { query(config: { name?: string; text: string; values: unknown[]; types?: CustomTypesConfig }): Promise<{ rows: unknown[] }> };
/** Knex's client of a builder: its pool's, or a transaction's (whose "acquire" hands out the transaction's connection). */
type PoolingClient = { acquireConnection(): Promise<PooledConnection>; releaseConnection(c: PooledConnection): Promise<void> };

/**
 * Runs the select `q` as a named statement on a connection of its Knex instance (a pooled one, or
 * the transaction's): compiled here, once, and sent by node-postgres directly, where Knex's runner
 * would compile it again.
 * @param types node-postgres parsers for this statement (e.g. TEXT_TIMESTAMPS of @dms/db)
 * @param named false: sent unnamed, planned for its values each time (a search, whose best plan
 *   depends on how many rows its values match)
 * @returns the rows
 * @throws the database's error, or KnexTimeoutError when no connection frees up in time
 */
export async function preparedQuery<Row>(q: Knex.QueryBuilder, types?: CustomTypesConfig, named = true): Promise<Row[]> {
  const { sql, bindings } = q.toSQL().toNative();
  const client = (q as unknown as { client: PoolingClient }).client;
  const connection = await client.acquireConnection();
  try {
    const run = (name: string | undefined) =>
      connection.query({ ...(name ? { name } : {}), text: sql, values: bindings as unknown[], ...(types ? { types } : {}) });
    const name = named ? nameOf(sql) : undefined;
    try {
      return (await run(name)).rows as Row[];
    } catch (err) {
      if (!name || !isStalePlan(err)) throw err;
      // A new name for this text makes every connection prepare it afresh (the old statements stay
      // allocated until their connection closes: a few per migration).
      names.delete(sql);
      return (await run(nameOf(sql))).rows as Row[];
    }
  } finally {
    await client.releaseConnection(connection);
  }
}
