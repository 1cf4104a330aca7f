/**
 * Stored idempotent responses removable by an erasure (libs/db/src/migrations/108_erased_idempotent_responses.ts,
 * docs/api.md sections 3 and 20): a key stored with the schema before 108 keeps its response
 * through the migration, not marked erased, and can then be marked.
 */
import { expect, test } from '@jest/globals';
import { migrateLatest } from '@dms/db';
import { MIGRATIONS } from '../../libs/db/src/migrations/index.js';
import { insertOldParties, scratchDatabase } from './support.js';

const scratch = scratchDatabase();
/** The migration 108 follows, whichever it is once other migrations are merged in. */
const BEFORE = MIGRATIONS[MIGRATIONS.findIndex(([name]) => name === '108_erased_idempotent_responses') - 1]![0];

test('a stored response written before 108 keeps its body and is not erased; erased_at can then be set', async () => {
  const db = await scratch.at(BEFORE);
  await insertOldParties(db);
  const row = {
    tenant_id: 'ten_old',
    client_id: 'cli_old',
    key: 'k1',
    fingerprint: 'f'.repeat(64),
    method: 'POST',
    path: '/customers',
    state: 'completed',
    claim: 'c1',
    response_status: 201,
    response_headers: JSON.stringify({ location: '/customers/cus_old' }),
    response_body: 'v1.sealed.body',
    expires_at: new Date(Date.now() + 86_400_000),
  };
  await db('idempotency_keys').insert(row);

  await migrateLatest(db);
  const [after] = await db('idempotency_keys').where({ key: 'k1' }).select('response_status', 'response_headers', 'response_body', 'erased_at');
  expect(after).toEqual({ response_status: 201, response_headers: { location: '/customers/cus_old' }, response_body: 'v1.sealed.body', erased_at: null });
  await db('idempotency_keys').where({ key: 'k1' }).update({ response_body: null, response_headers: null, erased_at: db.fn.now() });
  expect(await db('idempotency_keys').whereNotNull('erased_at').pluck('key')).toEqual(['k1']);
});
