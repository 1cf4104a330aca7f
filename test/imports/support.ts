/**
 * Fixtures of the import tests (docs/api.md section 16): the sample files of `samples/imports/`,
 * uploads as multipart over HTTP, workers limited to a test's tenants, and waiting for an import
 * to finish by polling it as a client would.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startService, REPO_ROOT, type RunningService } from '@dms/tools/processes';
import { SERVICE_ENV, apiAs, testDb } from '../support/harness.js';
import { eventually } from '../support/eventually.js';

type Api = ReturnType<typeof apiAs>;

/** The text of a committed sample file (`placement`, `transaction`, `arrangement`, `closure`). */
export const sample = (type: string) => readFileSync(join(REPO_ROOT, 'samples', 'imports', `${type}.csv`));

/** Uploads `content` as a file of `type`; resolves to the supertest response. */
export function upload(api: Api, type: string, content: string | Buffer, fields: Record<string, string> = {}, filename = `${type}.csv`) {
  let req = api.post('/imports').field('type', type);
  for (const [k, v] of Object.entries(fields)) req = req.field(k, v);
  return req.attach('file', Buffer.isBuffer(content) ? content : Buffer.from(content), filename);
}

/** Starts a worker serving only `tenantIds`, polling every 0.2 s. */
export function startImportWorker(tenantIds: string[], env: Record<string, string> = {}): Promise<RunningService> {
  return startService('worker', { ...SERVICE_ENV, WORKER_TENANT_IDS: tenantIds.join(','), WORKER_POLL_SECONDS: '0.2', ENGINE_ENABLED: 'false', ...env });
}

/** Polls the import until it is `completed` or `failed`; returns it. */
export async function finished(api: Api, id: string, timeoutMs = 900_000): Promise<Record<string, any>> {
  let last: Record<string, any> = {};
  await eventually(
    async () => {
      last = (await api.get(`/imports/${id}`).expect(200)).body;
      return last.status === 'completed' || last.status === 'failed';
    },
    `import ${id} finished`,
    timeoutMs,
  );
  return last;
}

/** The tenant's debt with `accountNumber`, as stored. */
export const debtByAccount = (tenantId: string, accountNumber: string) =>
  testDb()('debts').where({ tenant_id: tenantId, account_number: accountNumber }).first();

/** Counts of event types for the tenant (all objects). */
export async function eventCounts(tenantId: string): Promise<Record<string, number>> {
  const rows = (await testDb()('events').where({ tenant_id: tenantId }).select('type').count('* as n').groupBy('type')) as Array<{ type: string; n: string }>;
  return Object.fromEntries(rows.map((r) => [r.type, Number(r.n)]));
}

export { PLACEMENT_HEADER, csvOf, placementRow } from '@dms/tools/placement-rows';
