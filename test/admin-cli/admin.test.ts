/**
 * The operators' admin CLI (docs/api.md section 2): each command prints exactly one JSON object on
 * stdout; bad input exits non-zero with nothing on stdout and nothing changed; client secrets are
 * never stored in plain text.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import { SCOPES } from '@dms/scopes';
import { AUDIENCE, AUTH_URL, SERVICE_ENV, closeHarness, testDb } from '../support/harness.js';
import { adminJson, runAdmin } from '../support/admin-cli.js';

afterAll(closeHarness);

const ID = (prefix: string) => new RegExp(`^${prefix}_[0-9A-Za-z]{24}$`);

interface Issued {
  client_id: string;
  client_secret: string;
  audience: string;
  token_url: string;
  tenant_id: string;
  scope: string;
}

function token(clientId: string, secret: string) {
  return request(AUTH_URL).post('/oauth/token').auth(clientId, secret).type('form').send({ grant_type: 'client_credentials', audience: AUDIENCE });
}

let tenantId: string;
/** Clients created up front, concurrently (each CLI run is a process start). */
let scoped: Issued;
let unscoped: Issued;
let rotating: Issued;
let leaving: Issued;

beforeAll(async () => {
  const tenant = await adminJson<{ id: string; object: string; name: string; created_at: string }>(['tenants', 'create', '--name', 'Acme Ltd']);
  expect(tenant).toMatchObject({ object: 'tenant', name: 'Acme Ltd' });
  expect(tenant.id).toMatch(ID('ten'));
  expect(new Date(tenant.created_at).toISOString()).toBe(tenant.created_at);
  tenantId = tenant.id;
  const create = (name: string, extra: string[] = []) => adminJson<Issued>(['clients', 'create', '--tenant', tenantId, '--name', name, ...extra]);
  [scoped, unscoped, rotating, leaving] = await Promise.all([
    create('backend', ['--scope', 'debts:read customers:read']),
    create('all'),
    create('rotating'),
    create('leaving'),
  ]);
});

describe('commands', () => {
  test('tenants create stores the tenant', async () => {
    expect(await testDb()('tenants').where({ id: tenantId }).first('name')).toEqual({ name: 'Acme Ltd' });
  });

  test('clients create prints the credentials once; they get a token with the scope given', async () => {
    const issued = scoped;
    expect(Object.keys(issued).sort()).toEqual(['audience', 'client_id', 'client_secret', 'livemode', 'scope', 'tenant_id', 'token_url']);
    expect(issued).toMatchObject({
      audience: AUDIENCE,
      token_url: `${SERVICE_ENV.AUTH_ISSUER}/oauth/token`,
      tenant_id: tenantId,
      scope: 'debts:read customers:read',
    });
    const res = await token(issued.client_id, issued.client_secret).expect(200);
    expect(res.body.scope.split(' ').sort()).toEqual(['customers:read', 'debts:read']);
  });

  test('clients create without --scope allows every scope', async () => {
    const issued = unscoped;
    expect(issued.scope.split(' ').sort()).toEqual([...SCOPES].sort());
  });

  test('the client secret is stored only encrypted', async () => {
    const issued = unscoped;
    const row = await testDb()('oauth_clients').where({ client_id: issued.client_id }).first();
    expect(row).toBeDefined();
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(issued.client_secret);
    // Nor any recognisable part of it (the random part, without the cs_ prefix).
    expect(stored).not.toContain(issued.client_secret.slice(3, 19));
  });

  test('clients rotate-secret: a new secret works, the old one stops at once', async () => {
    const issued = rotating;
    const rotated = await adminJson<Issued>(['clients', 'rotate-secret', '--client', issued.client_id]);
    expect(rotated).toMatchObject({ client_id: issued.client_id, tenant_id: tenantId, audience: AUDIENCE });
    expect(rotated.client_secret).not.toBe(issued.client_secret);
    expect((await token(issued.client_id, issued.client_secret)).status).toBe(401);
    await token(issued.client_id, rotated.client_secret).expect(200);
  });

  test('clients revoke: the client can no longer get tokens, and revoked clients cannot be rotated', async () => {
    const issued = leaving;
    const revoked = await adminJson<{ client_id: string; revoked_at: string }>(['clients', 'revoke', '--client', issued.client_id]);
    expect(revoked.client_id).toBe(issued.client_id);
    expect(new Date(revoked.revoked_at).toISOString()).toBe(revoked.revoked_at);
    const res = await token(issued.client_id, issued.client_secret);
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
    const rotate = await runAdmin(['clients', 'rotate-secret', '--client', issued.client_id]);
    expect(rotate.code).not.toBe(0);
    expect(rotate.stdout).toBe('');
  });
});

describe('bad input: non-zero exit, nothing on stdout, nothing changed', () => {
  const cases: Array<[string, string[]]> = [
    ['no command', []],
    ['an unknown command', ['tenants', 'delete', '--name', 'x']],
    ['an unknown flag', ['tenants', 'create', '--name', 'x', '--colour', 'red']],
    ['tenants create without --name', ['tenants', 'create']],
    ['tenants create with an empty name', ['tenants', 'create', '--name', '   ']],
    ['clients create without --tenant', ['clients', 'create', '--name', 'x']],
    ['clients create for an unknown tenant', ['clients', 'create', '--tenant', 'ten_000000000000000000000000', '--name', 'x']],
    ['clients create with an unknown scope', ['clients', 'create', '--tenant', 'TENANT', '--name', 'x', '--scope', 'debts:read admin:all']],
    ['clients rotate-secret of an unknown client', ['clients', 'rotate-secret', '--client', 'cli_000000000000000000000000']],
    ['clients revoke of an unknown client', ['clients', 'revoke', '--client', 'cli_000000000000000000000000']],
  ];

  test('every case', async () => {
    const countsBefore = await counts();
    // Concurrently: each run is a process start, and they are independent.
    const runs = await Promise.all(cases.map(([, args]) => runAdmin(args.map((a) => (a === 'TENANT' ? tenantId : a)))));
    runs.forEach((run, i) => {
      // The case name rides along so a failure says which one.
      const outcome = { case: cases[i]![0], failed: run.code !== 0, stdout: run.stdout, diagnosed: run.stderr.length > 0 };
      expect(outcome).toEqual({ case: cases[i]![0], failed: true, stdout: '', diagnosed: true });
    });
    expect(await counts()).toEqual(countsBefore);
  });
});

/** Rows of the operator tables of this tenant (the bad-input cases must leave them as they were). */
async function counts() {
  const [tenants, clients] = await Promise.all([
    // Only names the bad inputs use: other test files create tenants at the same time.
    testDb()('tenants').whereIn('name', ['x', '']).count<{ count: string }[]>('* as count'),
    testDb()('oauth_clients').where({ tenant_id: tenantId }).count<{ count: string }[]>('* as count'),
  ]);
  return { tenants: tenants[0]!.count, clients: clients[0]!.count };
}
