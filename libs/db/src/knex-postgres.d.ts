/**
 * Knex's PostgreSQL client class (knex 3, CommonJS, no types of its own): the base of the pools'
 * client in pg-client.ts. Only the members that module overrides or calls are declared.
 */
declare module 'knex/lib/dialects/postgres/index.js' {
  import type pg from 'pg';

  /** A query as Knex's runner hands it to the client. */
  export interface KnexQueryObject {
    sql: string;
    bindings?: unknown[];
    response?: unknown;
  }

  class PostgresClient {
    constructor(config: object);
    acquireRawConnection(): Promise<pg.Client>;
    _query(connection: pg.Client, obj: KnexQueryObject): Promise<KnexQueryObject>;
  }
  export default PostgresClient;
}
