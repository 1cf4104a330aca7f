/**
 * The issuer's client cache (services/auth/src/oauth/client-cache.ts; docs/api.md section 2: a
 * revoked client or a rotated secret takes effect at once): it answers from memory only while the
 * change notifications are heard, and never stores a lookup that may predate a change.
 */
import { describe, expect, test } from '@jest/globals';
import { createClientCache } from '../../services/auth/src/oauth/client-cache.js';
import type { StoredClient } from '../../services/auth/src/domain/clients.js';

/** A fake database: `rows` is what a lookup reads; `loads` counts lookups; `hold` delays them. */
function fakeDb() {
  const rows = new Map<string, StoredClient>();
  let release: (() => void) | undefined;
  const db = {
    rows,
    loads: 0,
    hold: false,
    /** Lets a held lookup finish. */
    release: () => release?.(),
    async load(id: string): Promise<StoredClient | undefined> {
      db.loads++;
      const row = rows.get(id);
      if (db.hold) await new Promise<void>((r) => (release = r));
      return row;
    },
  };
  return db;
}

const client = (secret: string): StoredClient => ({
  client_id: 'cli_a',
  client_secret: secret,
  tenant_id: 'ten_a',
  scope: 'debts:read',
  kind: 'tenant',
  livemode: true,
});

function cacheOver(db: ReturnType<typeof fakeDb>, ttlSeconds = 60) {
  return createClientCache({ load: (id) => db.load(id), max: 100, ttlSeconds });
}

describe('client cache', () => {
  test('is bypassed until the LISTEN is in place, then answers from memory', async () => {
    const db = fakeDb();
    db.rows.set('cli_a', client('s1'));
    const cache = cacheOver(db);
    await cache.find('cli_a');
    await cache.find('cli_a');
    expect(db.loads).toBe(2);
    cache.resume();
    await cache.find('cli_a');
    await cache.find('cli_a');
    expect(db.loads).toBe(3);
  });

  test('a change notification drops the client: the next lookup reads the database', async () => {
    const db = fakeDb();
    db.rows.set('cli_a', client('s1'));
    const cache = cacheOver(db);
    cache.resume();
    expect((await cache.find('cli_a'))?.client_secret).toBe('s1');
    db.rows.set('cli_a', client('s2'));
    cache.invalidate('cli_a');
    expect((await cache.find('cli_a'))?.client_secret).toBe('s2');
    db.rows.delete('cli_a');
    cache.invalidate();
    expect(await cache.find('cli_a')).toBeUndefined();
  });

  test('a lost LISTEN connection empties the cache and bypasses it until listening again', async () => {
    const db = fakeDb();
    db.rows.set('cli_a', client('s1'));
    const cache = cacheOver(db);
    cache.resume();
    await cache.find('cli_a');
    cache.suspend();
    // A revocation whose notification nobody heard.
    db.rows.delete('cli_a');
    expect(await cache.find('cli_a')).toBeUndefined();
    db.rows.set('cli_a', client('s3'));
    expect((await cache.find('cli_a'))?.client_secret).toBe('s3');
    const loads = db.loads;
    cache.resume();
    await cache.find('cli_a');
    await cache.find('cli_a');
    expect(db.loads).toBe(loads + 1);
  });

  test('a lookup running when a change is notified is not stored', async () => {
    const db = fakeDb();
    db.rows.set('cli_a', client('old'));
    const cache = cacheOver(db);
    cache.resume();
    db.hold = true;
    const running = cache.find('cli_a');
    // The row changes and its notification arrives while the lookup's answer is on its way.
    db.rows.set('cli_a', client('new'));
    cache.invalidate('cli_a');
    db.release();
    expect((await running)?.client_secret).toBe('old');
    db.hold = false;
    expect((await cache.find('cli_a'))?.client_secret).toBe('new');
  });

  test('unknown clients are not cached', async () => {
    const db = fakeDb();
    const cache = cacheOver(db);
    cache.resume();
    await cache.find('cli_nobody');
    await cache.find('cli_nobody');
    expect(db.loads).toBe(2);
  });

  test('entries expire after the TTL; TTL 0 turns the cache off', async () => {
    const db = fakeDb();
    db.rows.set('cli_a', client('s1'));
    const short = cacheOver(db, 0.05);
    short.resume();
    await short.find('cli_a');
    await new Promise((r) => setTimeout(r, 80));
    await short.find('cli_a');
    expect(db.loads).toBe(2);

    const off = cacheOver(db, 0);
    off.resume();
    await off.find('cli_a');
    await off.find('cli_a');
    expect(db.loads).toBe(4);
  });
});
