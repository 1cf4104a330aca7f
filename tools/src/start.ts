/**
 * `npm start`: the whole system on one machine. First checks every setting it and the services
 * read (tools/src/start-checks.ts: a bad one stops it with one `config error: NAME: …` line, as a
 * service started alone does), then every port. Uses `DATABASE_URL`, or starts the embedded
 * PostgreSQL under `.data/pg` on `EMBEDDED_PG_PORT` (54320) when it is unset, and if that server
 * cannot start prints PostgreSQL's reason and exits 1; applies migrations; when `SMTP_URL` and
 * `SMS_API_KEY` are unset, starts the local mail server (SMTP 2525, web page 3003) and SMS
 * stand-in (3004) that keep what they receive under `.data` (docs/api.md section 13); then runs
 * the issuer (4000), the API (3000), the dispatcher (3001), the worker (3002) and the customer portal (3005) until Ctrl-C or
 * SIGTERM, which stops them all.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { LocalChannels } from '@dms/channels/standin';
import { createDb, migrateLatest, resolveDatabase, type LocalPostgres } from '@dms/db';
import { portIsFree, startService, type RunningService, type ServiceName } from './processes.js';
import { checkSecretsKey, checkSettings, databaseWhere, reachDatabase, StartCheckError } from './start-checks.js';

const say = (line: string) => process.stderr.write(`[start] ${line}\n`);

/** Stops with the one line of a setting `npm start` cannot run with (exit 1); rethrows anything else. */
function refuse(err: unknown): never {
  if (!(err instanceof StartCheckError)) throw err;
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
}

// Every setting is checked before anything starts, by the validators the services use (libs/config).
const cfg = await checkSettings(process.env).catch(refuse);

const plan: Array<[ServiceName, number]> = [
  ['auth', cfg.AUTH_PORT],
  ['api', cfg.API_PORT],
  ['dispatcher', cfg.DISPATCHER_PORT],
  ['worker', cfg.WORKER_PORT],
  ['portal', cfg.PORTAL_PORT],
];

// Stand-ins only for channels nobody configured: a configured one is used as it is.
const localMail = !process.env.SMTP_URL;
const localSms = !process.env.SMS_API_KEY;
const standinPorts = { smtp: cfg.LOCAL_SMTP_PORT, mailWeb: cfg.LOCAL_MAIL_WEB_PORT, sms: cfg.LOCAL_SMS_PORT };

// Every port is checked before anything starts: a second `npm start` must stop here with the
// reason and the setting that moves it, not announce "ready" and then lose a service to EADDRINUSE.
const ports: Array<[what: string, setting: string, port: number]> = [
  ...plan.map(([name, port]): [string, string, number] => [name, `${name.toUpperCase()}_PORT`, port]),
  ...(process.env.DATABASE_URL ? [] : [['embedded PostgreSQL', 'EMBEDDED_PG_PORT', cfg.EMBEDDED_PG_PORT] as [string, string, number]]),
  ...(localMail || localSms
    ? ([
        ['local SMTP server', 'LOCAL_SMTP_PORT', standinPorts.smtp],
        ['local mail web page', 'LOCAL_MAIL_WEB_PORT', standinPorts.mailWeb],
        ['local SMS stand-in', 'LOCAL_SMS_PORT', standinPorts.sms],
      ] as Array<[string, string, number]>)
    : []),
];
for (const [what, setting, port] of ports) {
  let free: boolean;
  try {
    free = await portIsFree(port);
  } catch (err) {
    // EACCES (a privileged port) and the like: the setting is the fix.
    refuse(
      new StartCheckError(
        `config error: ${setting}: cannot listen on port ${port} for the ${what} (${(err as NodeJS.ErrnoException).code}): set a port from 1024 to 65535`,
      ),
    );
  }
  if (!free) {
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
const db = createDb(pgServer.url, 1);
try {
  // Both before saying anything: a setting that cannot work is one line and nothing else.
  await reachDatabase(pgServer.url, pgServer.owned);
  await checkSecretsKey(db, cfg);
  say(pgServer.owned ? `embedded PostgreSQL running on ${databaseWhere(pgServer.url)}` : `using database ${databaseWhere(pgServer.url)}`);
  const applied = await migrateLatest(db);
  say(applied.length ? `migrations applied: ${applied.join(', ')}` : 'schema up to date');
} catch (err) {
  await db.destroy();
  await pgServer.stop();
  refuse(err);
}
await db.destroy();

// LOG_LEVEL explicitly: the children's defaults (startService's) must not override the operator's.
const env: Record<string, string> = { DATABASE_URL: pgServer.url, NODE_ENV: cfg.NODE_ENV, LOG_LEVEL: cfg.LOG_LEVEL };
const running: RunningService[] = [];
let stopping = false;
let channels: LocalChannels | null = null;
if (localMail || localSms) {
  const dataDir = cfg.DATA_DIR;
  // Loaded only when needed: the stand-ins' libraries must not slow the busy-port check above.
  const { startLocalChannels } = await import('@dms/channels/standin');
  // The stand-ins call the API back: replies and bounces, SMS receipts and inbound SMS (docs/api.md section 13).
  const apiUrl = `http://127.0.0.1:${plan.find(([name]) => name === 'api')![1]}`;
  env.INBOUND_MAIL_SECRET = process.env.INBOUND_MAIL_SECRET || randomBytes(24).toString('base64url');
  channels = await startLocalChannels({
    dataDir,
    replyDomain: process.env.REPLY_DOMAIN ?? 'reply.localhost',
    ports: standinPorts,
    mailInbound: { url: `${apiUrl}/callbacks/email`, secret: env.INBOUND_MAIL_SECRET },
    smsReceiptUrl: `${apiUrl}/callbacks/sms/receipts`,
    smsInboundUrl: `${apiUrl}/callbacks/sms/inbound`,
  });
  const { SMTP_URL, ...smsEnv } = channels.env;
  if (localMail) {
    env.SMTP_URL = SMTP_URL!;
    say(`local mail server: SMTP ${SMTP_URL}, messages at ${channels.mail.webUrl} (kept under ${join(dataDir, 'mail')})`);
  }
  if (localSms) {
    Object.assign(env, smsEnv);
    say(
      `local SMS stand-in (Vonage SMS API shape) at ${channels.sms.url}, messages at ${channels.sms.url}/_standin/messages (kept under ${join(dataDir, 'sms')})`,
    );
  }
}

async function stopAll(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    say('stopping');
    await Promise.all(running.map((s) => s.stop()));
    await channels?.stop();
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
