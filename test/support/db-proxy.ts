/**
 * A TCP proxy in front of the test PostgreSQL, for tests of a database that goes away as in a
 * failover: `cut()` drops every proxied connection and then accepts and closes new ones at once
 * (as HAProxy does while no primary passes its health check) until `restore()`; `silence()` keeps
 * every connection open but carries no byte either way (a server cut off the network, with no FIN
 * or RST ever arriving) until `restore()`. It also records
 * the names of the statements clients prepare (the frontend protocol's Parse messages), to show
 * what a pooler in front of the server would see.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

/** A running proxy. */
export interface DbProxy {
  port: number;
  /** `url` (a PostgreSQL connection string) with its host and port replaced by the proxy's. */
  via(url: string): string;
  /** Names of the statements clients prepared (non-empty Parse names). */
  preparedNames: Set<string>;
  /** Count of Parse messages without a name (unnamed statements). */
  unnamedParses: number;
  /** Local ports of the open connections to the server: `client_port` of their sessions in pg_stat_activity. */
  serverSidePorts(): number[];
  /** Drops every connection and refuses new ones. */
  cut(): void;
  /** Carries nothing more, on open and new connections alike, without closing any. */
  silence(): void;
  restore(): void;
  close(): Promise<void>;
}

/** Reads the frontend messages of one client connection (the start-up message has no type byte). */
function parseWatcher(proxy: DbProxy): (chunk: Buffer) => void {
  let pending = Buffer.alloc(0);
  let started = false;
  return (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    for (;;) {
      if (!started) {
        if (pending.length < 4 || pending.length < pending.readInt32BE(0)) return;
        pending = pending.subarray(pending.readInt32BE(0));
        started = true;
        continue;
      }
      if (pending.length < 5 || pending.length < 1 + pending.readInt32BE(1)) return;
      if (pending[0] === 0x50 /* 'P': Parse, whose body starts with the statement name */) {
        const name = pending.toString('utf8', 5, pending.indexOf(0, 5));
        if (name) proxy.preparedNames.add(name);
        else proxy.unnamedParses++;
      }
      pending = pending.subarray(1 + pending.readInt32BE(1));
    }
  };
}

/** Starts a proxy on a free 127.0.0.1 port to the host and port of `targetUrl`. */
export async function startDbProxy(targetUrl: string): Promise<DbProxy> {
  const target = new URL(targetUrl);
  const open = new Set<Socket>();
  const upstreams = new Set<Socket>();
  let refusing = false;
  let silent = false;
  const server: Server = createServer((client) => {
    if (refusing) return void client.destroy();
    const upstream = createConnection({ host: target.hostname, port: Number(target.port || 5432) });
    open.add(client).add(upstream);
    upstreams.add(upstream);
    const watch = parseWatcher(proxy);
    client.on('data', (chunk: Buffer) => {
      if (silent) return;
      watch(chunk);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!silent) client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
      upstreams.delete(upstream);
    };
    for (const s of [client, upstream]) s.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const proxy: DbProxy = {
    port,
    via(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.href;
    },
    preparedNames: new Set(),
    unnamedParses: 0,
    serverSidePorts: () => [...upstreams].map((s) => s.localPort).filter((p): p is number => p !== undefined),
    cut() {
      refusing = true;
      for (const s of open) s.destroy();
      open.clear();
      upstreams.clear();
    },
    silence() {
      silent = true;
    },
    restore() {
      refusing = false;
      silent = false;
    },
    async close() {
      proxy.cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
