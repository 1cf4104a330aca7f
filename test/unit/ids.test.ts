/**
 * Object identifiers (docs/api.md section 3): a prefix, an underscore and 24 random base62
 * characters; the validation pattern accepts exactly those; characters are uniformly spread.
 */
import { describe, expect, test } from '@jest/globals';
import { PREFIX_PATTERN, idPattern, newId, randomBase62, type IdPrefix } from '../../libs/ids/src/index.js';
import { ID_PREFIXES } from '../../libs/domain/src/registry.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

describe('prefixes', () => {
  test('the resources declare those of the reference (section 3; li, inv, pp of section 8; cd of section 10), one per object type, all distinct', () => {
    expect(ID_PREFIXES).toMatchObject({
      tenant: 'ten',
      organisation: 'org',
      customer: 'cus',
      contact_detail: 'cd',
      debt: 'deb',
      payment: 'pay',
      line_item: 'li',
      invoice: 'inv',
      payment_plan: 'pp',
      webhook_endpoint: 'wh',
      event: 'evt',
      webhook_delivery: 'del',
    });
    expect(new Set(Object.values(ID_PREFIXES)).size).toBe(Object.keys(ID_PREFIXES).length);
    for (const prefix of Object.values(ID_PREFIXES)) expect(prefix).toMatch(PREFIX_PATTERN);
  });

  test('newId refuses a prefix that is not 2 to 4 lower-case letters', () => {
    for (const bad of ['', 'd', 'DEB', 'debts', 'de_b']) expect(() => newId(bad)).toThrow(/2 to 4 lower-case letters/);
  });
});

describe('newId', () => {
  test.each(Object.values(ID_PREFIXES) as IdPrefix[])('%s_ followed by 24 base62 characters', (prefix) => {
    const id = newId(prefix);
    expect(id).toMatch(new RegExp(`^${prefix}_[0-9A-Za-z]{24}$`));
    expect(id).toMatch(new RegExp(idPattern(prefix)));
  });

  test('does not repeat', () => {
    const ids = new Set(Array.from({ length: 5000 }, () => newId('deb')));
    expect(ids.size).toBe(5000);
  });
});

describe('randomBase62', () => {
  test.each([1, 5, 24, 100, 1000])('returns exactly %i characters from the alphabet', (n) => {
    const s = randomBase62(n);
    expect(s).toHaveLength(n);
    expect([...s].every((c) => BASE62.includes(c))).toBe(true);
  });

  test('uses every character about equally often (rejection sampling, no modulo bias)', () => {
    const counts = new Map<string, number>();
    const sample = randomBase62(62 * 2000);
    for (const c of sample) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // Expected 2000 each, standard deviation ~44: a modulo bias (256 % 62 = 8 characters drawn
    // 5/4 as often) would put those near 2400, far outside this band.
    for (const n of counts.values()) {
      expect(n).toBeGreaterThan(1750);
      expect(n).toBeLessThan(2250);
    }
  });
});

describe('idPattern', () => {
  const pattern = (prefix: IdPrefix) => new RegExp(idPattern(prefix));

  test('is anchored and exact', () => {
    expect(idPattern('deb')).toBe('^deb_[0-9A-Za-z]{24}$');
  });

  test.each([
    ['deb_4mG9c0Zk2QeX7bLr1TnW8yPa', true],
    ['deb_4mG9c0Zk2QeX7bLr1TnW8yP', false],
    ['deb_4mG9c0Zk2QeX7bLr1TnW8yPaa', false],
    ['cus_4mG9c0Zk2QeX7bLr1TnW8yPa', false],
    ['DEB_4mG9c0Zk2QeX7bLr1TnW8yPa', false],
    ['deb-4mG9c0Zk2QeX7bLr1TnW8yPa', false],
    ['deb_4mG9c0Zk2QeX7bLr1TnW8y-a', false],
    ['deb_4mG9c0Zk2QeX7bLr1TnW8y_a', false],
    [' deb_4mG9c0Zk2QeX7bLr1TnW8yPa', false],
    ['deb_4mG9c0Zk2QeX7bLr1TnW8yPa\n', false],
    ['xdeb_4mG9c0Zk2QeX7bLr1TnW8yPa', false],
  ])('%j matches: %s', (value, ok) => {
    expect(pattern('deb').test(value)).toBe(ok);
  });
});
