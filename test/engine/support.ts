/**
 * Fixtures of the collection engine tests (docs/api.md sections 12 and 13): the local SMTP server
 * and SMS stand-in over real sockets, an API instance whose callbacks they reach (inbound mail,
 * signed SMS receipts and inbound SMS), workers limited to a test's tenants with their clocks set
 * inside or outside the contact window, and debts made through the public API.
 */
import { mkdtemp } from 'node:fs/promises';
import { afterAll, beforeAll } from '@jest/globals';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalChannels, type LocalChannels } from '@dms/channels/standin';
import { localTime } from '@dms/domain/communications';
import { freePort, startService, type RunningService } from '@dms/tools/processes';
import { SERVICE_ENV, apiAs, closeHarness, testDb } from '../support/harness.js';
import { eventually } from '../support/eventually.js';

type Api = ReturnType<typeof apiAs>;

/** The bearer secret of forwarded inbound mail in these tests. */
export const INBOUND_SECRET = 'inbound-test-secret';
/** The reply domain of these tests. */
export const REPLY_DOMAIN = 'reply.engine.test';

/** Everything an engine test runs against. */
export interface EngineRig {
  channels: LocalChannels;
  /** The API instance the stand-ins call back. */
  callbacks: RunningService;
  /** Settings of the services that use the channels. */
  env: Record<string, string>;
  started: RunningService[];
  /** Starts a worker for `tenantIds` whose clock is `offsetSeconds` ahead. */
  worker(tenantIds: string[], offsetSeconds: number, env?: Record<string, string>): Promise<RunningService>;
  stop(): Promise<void>;
}

/** Starts the stand-ins and a callbacks API. */
export async function engineRig(): Promise<EngineRig> {
  const dataDir = await mkdtemp(join(tmpdir(), 'dms-engine-'));
  const apiPort = await freePort();
  const base = `http://127.0.0.1:${apiPort}`;
  const channels = await startLocalChannels({
    dataDir,
    replyDomain: REPLY_DOMAIN,
    mailInbound: { url: `${base}/callbacks/email`, secret: INBOUND_SECRET },
    smsReceiptUrl: `${base}/callbacks/sms/receipts`,
    smsInboundUrl: `${base}/callbacks/sms/inbound`,
  });
  const env = {
    ...SERVICE_ENV,
    ...channels.env,
    REPLY_DOMAIN,
    INBOUND_MAIL_SECRET: INBOUND_SECRET,
    MAIL_FROM: 'Collections <collections@engine.test>',
    DATA_DIR: dataDir,
  };
  const started: RunningService[] = [];
  const callbacks = await startService('api', env, apiPort);
  started.push(callbacks);
  return {
    channels,
    callbacks,
    env,
    started,
    async worker(tenantIds, offsetSeconds, extra = {}) {
      const w = await startService('worker', {
        ...env,
        WORKER_TENANT_IDS: tenantIds.join(','),
        WORKER_POLL_SECONDS: '0.2',
        WORKER_CLOCK_OFFSET_SECONDS: String(offsetSeconds),
        ...extra,
      });
      started.push(w);
      return w;
    },
    async stop() {
      await Promise.all(started.map((s) => s.stop('SIGKILL')));
      await channels.stop();
    },
  };
}

/**
 * Seconds to add to now so that the clock reads `hour`:00 (±30 min) in Europe/London, today or
 * tomorrow, plus `days` whole days: the contact window of section 12 is 08:00-21:00 there.
 */
export function offsetToLondon(hour: number, days = 0): number {
  const now = new Date();
  const { hour: h, minute } = localTime(now, 'Europe/London');
  let minutes = (hour - h) * 60 - minute;
  if (minutes < 0) minutes += 24 * 60;
  return minutes * 60 + days * 86_400;
}

/** A customer with the given contact details; returns its id. */
export async function customerWith(api: Api, details: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await api.post('/customers', { kind: 'individual', first_name: 'Ann', last_name: 'Example', contact_details: details, ...extra }).expect(201);
  return res.body.id as string;
}

/** A `prepared` debt of `customerId` at `organisationId`; returns its id. */
export async function preparedDebt(api: Api, organisationId: string, customerId: string, principal = 12500): Promise<string> {
  const debt = await api
    .post('/debts', { customer_id: customerId, organisation_id: organisationId, currency: 'GBP', account_number: 'ACC-1', breakdown: { principal } })
    .expect(201);
  await api.post(`/debts/${debt.body.id}/ready`).expect(200);
  return debt.body.id as string;
}

/** The debt's row (status, engine bookkeeping). */
export const debtRow = (id: string) => testDb()('debts').where({ id }).first();

/** The debt's communications, oldest first. */
export const communicationsOf = (debtId: string) => testDb()('communications').where({ debt_id: debtId }).orderBy('seq');

/**
 * Waits until the debt's status is `status`.
 * @throws Error naming the status and context the debt has when `timeoutMs` passes
 */
export async function statusBecomes(id: string, status: string, timeoutMs = 60_000): Promise<void> {
  await eventually(
    async () => {
      const row = await debtRow(id);
      if (row.status !== status) throw new Error(`debt ${id} is '${row.status}' (${row.status_context}; due ${row.engine_due_at}), not '${status}'`);
      return true;
    },
    `debt ${id} to be '${status}'`,
    timeoutMs,
  );
}

/**
 * The rig of a test file: started in `beforeAll`, stopped (with the harness closed) in `afterAll`.
 * The returned object stands for the rig once started; using it before `beforeAll` has run throws.
 */
export function engineRigPerFile(): EngineRig {
  let rig: EngineRig | undefined;
  beforeAll(async () => {
    rig = await engineRig();
  });
  afterAll(async () => {
    await rig?.stop();
    await closeHarness();
  });
  return new Proxy({} as EngineRig, {
    get: (_target, key) => {
      if (!rig) throw new Error('the engine rig starts in beforeAll');
      const value: unknown = Reflect.get(rig, key);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(rig) : value;
    },
  });
}
