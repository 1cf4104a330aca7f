/**
 * Pure pieces of the collection engine's batches (docs/api.md section 13): rows of a set-wise
 * write are grouped by the columns they carry (one `UPDATE … FROM (VALUES …)` per group, so no
 * row writes a column it did not give), and local times read with one formatter per zone stay
 * right when zones alternate.
 */
import { describe, expect, test } from '@jest/globals';
import { localTime } from '@dms/domain/communications';
import { bySignature } from '@dms/domain/kernel';

describe('set-wise groups', () => {
  test('rows are grouped by the set of columns they carry, whatever their order, keeping their order inside a group', () => {
    const rows = [
      { id: 'a', engine_due_at: null },
      { id: 'b', engine_step: 1, engine_due_at: null },
      { engine_due_at: null, id: 'c' },
      { engine_due_at: null, engine_step: 2, id: 'd' },
      { id: 'e', contacted_at: new Date(0) },
    ];
    const groups = bySignature(rows, (r) => Object.keys(r)).map((g) => g.map((r) => r.id));
    expect(groups).toEqual([['a', 'c'], ['b', 'd'], ['e']]);
  });

  test('no rows, no groups', () => {
    expect(bySignature([], () => [])).toEqual([]);
  });
});

describe('local time by zone', () => {
  test('alternating zones each read their own wall clock', () => {
    const at = new Date('2025-01-15T23:30:00Z');
    for (let i = 0; i < 3; i++) {
      expect(localTime(at, 'Europe/London')).toEqual({ hour: 23, minute: 30, date: '2025-01-15' });
      expect(localTime(at, 'America/New_York')).toEqual({ hour: 18, minute: 30, date: '2025-01-15' });
      expect(localTime(at, 'Australia/Sydney')).toEqual({ hour: 10, minute: 30, date: '2025-01-16' });
    }
  });
});
