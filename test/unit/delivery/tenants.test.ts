/**
 * The public tenant object of @dms/domain's tenants (docs/api.md section 5), the one mapping the issuer's
 * admin CLI and `GET /tenants/me` both use.
 */
import { expect, test } from '@jest/globals';
import { tenantFromRow } from '@dms/domain/tenants';

test('a tenants row maps to the public object with ISO 8601 UTC timestamps', () => {
  const row = {
    id: 'ten_1a2B3c4D5e6F7g8H9i0JkLmN',
    name: 'Acme Energy',
    livemode: true,
    live_tenant_id: null,
    clock_offset_seconds: '0',
    created_at: new Date('2026-11-01T00:00:00Z'),
    updated_at: new Date('2026-11-02T10:20:30.400Z'),
  };
  expect(tenantFromRow(row)).toStrictEqual({
    id: row.id,
    object: 'tenant',
    name: 'Acme Energy',
    description: null,
    livemode: true,
    configurations: {},
    metadata: {},
    created_at: '2026-11-01T00:00:00.000Z',
    updated_at: '2026-11-02T10:20:30.400Z',
  });
});

test('columns beyond the public ones are not shown', () => {
  const row = {
    id: 'ten_x',
    name: 'n',
    livemode: false,
    live_tenant_id: 'ten_y',
    clock_offset_seconds: 5,
    created_at: new Date(0),
    updated_at: new Date(0),
    secret_column: 's',
  };
  expect(Object.keys(tenantFromRow(row))).toEqual([
    'id',
    'object',
    'name',
    'description',
    'livemode',
    'configurations',
    'metadata',
    'created_at',
    'updated_at',
  ]);
});
