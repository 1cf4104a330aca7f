/**
 * SSRF guard for tenant-chosen URLs (docs/api.md section 7): every class of non-public address is
 * refused and named, range edges fall on the right side, IPv4-mapped IPv6 is judged by its IPv4
 * address, public addresses pass, and the URL checks that need no DNS (IP-literal hosts, schemes,
 * user-info) answer as documented. Nothing here resolves a host name.
 */
import { describe, expect, test } from '@jest/globals';
import { ForbiddenTargetError, assertPublicAddress, checkTargetUrl, guardedLookup, nonPublicRange, resolveAll } from '../../libs/ssrf/src/index.js';

const strict = { allowPrivate: false };
const lax = { allowPrivate: true };

describe('nonPublicRange: refused classes', () => {
  test.each([
    // loopback
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    // private (RFC 1918), with both edges of 172.16/12
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.0', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    // link-local, including the cloud metadata service
    ['169.254.0.1', 'linkLocal'],
    ['169.254.169.254', 'linkLocal'],
    ['fe80::1', 'linkLocal'],
    ['fe80::1%eth0', 'linkLocal'],
    ['febf:ffff::1', 'linkLocal'],
    // unique-local fc00::/7, including AWS's IPv6 metadata address
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456:789a::1', 'uniqueLocal'],
    ['fd00:ec2::254', 'uniqueLocal'],
    // carrier-grade NAT (RFC 6598), both edges
    ['100.64.0.0', 'carrierGradeNat'],
    ['100.127.255.255', 'carrierGradeNat'],
    // multicast and broadcast
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['ff0e::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    // unspecified ("this network")
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    // documentation, benchmarking and reserved blocks
    ['192.0.0.8', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['2001:db8::1', 'reserved'],
    ['2001:2::1', 'reserved'],
    ['100::1', 'discard'],
    // IPv6 transition ranges that embed an IPv4 address
    ['::ffff:0:7f00:1', 'rfc6145'],
    ['64:ff9b::a9fe:a9fe', 'rfc6052'],
    ['2002:7f00:1::', '6to4'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
  ])('%s is %s', (address, range) => {
    expect(nonPublicRange(address)).toBe(range);
  });

  test.each([
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['::ffff:a9fe:a9fe', 'linkLocal'],
    ['::FFFF:192.168.0.1', 'private'],
    ['::ffff:100.64.0.1', 'carrierGradeNat'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['::ffff:198.18.0.1', 'benchmarking'],
  ])('IPv4-mapped %s is judged as its IPv4 address: %s', (address, range) => {
    expect(nonPublicRange(address)).toBe(range);
  });

  test.each([
    ['2130706433', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['0x7f.0.0.1', 'loopback'],
    ['0xa9fea9fe', 'linkLocal'],
  ])('non-dotted-decimal IPv4 forms are read, not waved through: %s', (address, range) => {
    expect(nonPublicRange(address)).toBe(range);
  });

  test.each(['', 'example.com', '[::1]', '256.0.0.1', '1.2.3', '::1::2', 'localhost', '127.0.0.1 ', ' 127.0.0.1'])(
    '%j is not an address and is refused as invalid',
    (value) => {
      expect(nonPublicRange(value)).toBe('invalid');
    },
  );
});

describe('nonPublicRange: public addresses pass', () => {
  test.each([
    '1.1.1.1',
    '8.8.8.8',
    '93.184.216.34',
    // just outside the refused blocks
    '9.255.255.255',
    '11.0.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '169.253.255.255',
    '169.255.0.0',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
    '192.169.0.1',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '2a00:1450:4001:82a::200e',
    '::ffff:8.8.8.8',
    'fbff::1',
  ])('%s', (address) => {
    expect(nonPublicRange(address)).toBeNull();
  });
});

describe('assertPublicAddress and ForbiddenTargetError', () => {
  test('passes a public address', () => {
    expect(() => assertPublicAddress('example.com', '93.184.216.34')).not.toThrow();
  });

  test('throws an error naming host, address and range', () => {
    let thrown: unknown;
    try {
      assertPublicAddress('metadata.internal', '169.254.169.254');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ForbiddenTargetError);
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown).toMatchObject({
      name: 'ForbiddenTargetError',
      code: 'ERR_FORBIDDEN_TARGET',
      host: 'metadata.internal',
      address: '169.254.169.254',
      range: 'linkLocal',
      message: 'metadata.internal resolves to 169.254.169.254 (linkLocal), which is not a public address',
    });
  });
});

describe('resolveAll with IP literals (no DNS)', () => {
  test('an IP literal resolves to itself, with or without IPv6 brackets', async () => {
    await expect(resolveAll('10.0.0.1')).resolves.toEqual(['10.0.0.1']);
    await expect(resolveAll('[fd00::1]')).resolves.toEqual(['fd00::1']);
    await expect(resolveAll('::1')).resolves.toEqual(['::1']);
  });
});

describe('checkTargetUrl without DNS', () => {
  test.each([
    ['https://127.0.0.1/hook', 'host 127.0.0.1 resolves to a non-public address (loopback)'],
    ['https://[::1]:8443/hook', 'host [::1] resolves to a non-public address (loopback)'],
    ['https://169.254.169.254/latest/meta-data/', 'host 169.254.169.254 resolves to a non-public address (linkLocal)'],
    ['https://[fd00:ec2::254]/', 'host [fd00:ec2::254] resolves to a non-public address (uniqueLocal)'],
    ['https://10.1.2.3/', 'host 10.1.2.3 resolves to a non-public address (private)'],
    ['https://100.100.100.200/', 'host 100.100.100.200 resolves to a non-public address (carrierGradeNat)'],
    ['https://0.0.0.0/', 'host 0.0.0.0 resolves to a non-public address (unspecified)'],
    ['https://[::ffff:127.0.0.1]/', 'host [::ffff:7f00:1] resolves to a non-public address (loopback)'],
    // WHATWG URL parsing turns these spellings into 127.0.0.1 before the check sees them.
    ['https://2130706433/', 'host 127.0.0.1 resolves to a non-public address (loopback)'],
    ['https://0x7f.1/', 'host 127.0.0.1 resolves to a non-public address (loopback)'],
    ['https://127.1/', 'host 127.0.0.1 resolves to a non-public address (loopback)'],
  ])('%s is refused', async (url, reason) => {
    await expect(checkTargetUrl(url, strict)).resolves.toBe(reason);
  });

  test('a public IP-literal https URL is accepted', async () => {
    await expect(checkTargetUrl('https://93.184.216.34/webhooks?x=1', strict)).resolves.toBeNull();
    await expect(checkTargetUrl('https://[2606:4700:4700::1111]:8443/', strict)).resolves.toBeNull();
  });

  test('only https, unless private targets are allowed (then http too)', async () => {
    await expect(checkTargetUrl('http://93.184.216.34/', strict)).resolves.toBe('must be an https URL');
    await expect(checkTargetUrl('ftp://93.184.216.34/', strict)).resolves.toBe('must be an https URL');
    await expect(checkTargetUrl('file:///etc/passwd', strict)).resolves.toBe('must be an https URL');
    await expect(checkTargetUrl('ftp://93.184.216.34/', lax)).resolves.toBe('must be an http or https URL');
    await expect(checkTargetUrl('javascript:alert(1)', lax)).resolves.toBe('must be an http or https URL');
  });

  test('port 0 is refused, whether or not private targets are allowed; other ports are fine', async () => {
    await expect(checkTargetUrl('https://93.184.216.34:0/hook', strict)).resolves.toBe('must not use port 0');
    await expect(checkTargetUrl('http://localhost:00/hook', lax)).resolves.toBe('must not use port 0');
    await expect(checkTargetUrl('https://93.184.216.34:1/hook', strict)).resolves.toBeNull();
    await expect(checkTargetUrl('https://93.184.216.34:65535/hook', strict)).resolves.toBeNull();
  });

  test('must be absolute', async () => {
    for (const value of ['', '/hook', 'example.com/hook', 'https://', 'https://[::1/']) {
      await expect(checkTargetUrl(value, strict)).resolves.toBe('must be an absolute URL');
    }
  });

  test('no user information, even with private targets allowed', async () => {
    await expect(checkTargetUrl('https://user:secret@93.184.216.34/', strict)).resolves.toBe('must not contain user information');
    await expect(checkTargetUrl('https://user@93.184.216.34/', strict)).resolves.toBe('must not contain user information');
    await expect(checkTargetUrl('http://:secret@127.0.0.1/', lax)).resolves.toBe('must not contain user information');
  });

  test('with private targets allowed, private and loopback addresses pass (local development, tests)', async () => {
    await expect(checkTargetUrl('http://127.0.0.1:3000/hook', lax)).resolves.toBeNull();
    await expect(checkTargetUrl('https://[::1]/', lax)).resolves.toBeNull();
    await expect(checkTargetUrl('http://169.254.169.254/', lax)).resolves.toBeNull();
  });
});

describe('guardedLookup with IP literals (no DNS)', () => {
  type Result = { err: NodeJS.ErrnoException | null; address: unknown; family?: number };
  const lookup = (policy: { allowPrivate: boolean }, host: string, options: { all?: boolean; family?: number } = {}) =>
    new Promise<Result>((resolve) => guardedLookup(policy)(host, options, (err, address, family) => resolve({ err, address, family })));

  test('refuses a non-public address before any socket is opened', async () => {
    const { err, address } = await lookup(strict, '127.0.0.1');
    expect(err).toBeInstanceOf(ForbiddenTargetError);
    expect(err).toMatchObject({ host: '127.0.0.1', address: '127.0.0.1', range: 'loopback' });
    expect(address).toEqual([]);
    await expect(lookup(strict, '169.254.169.254')).resolves.toMatchObject({ err: { range: 'linkLocal' } });
    await expect(lookup(strict, '::1', { family: 6 })).resolves.toMatchObject({ err: { range: 'loopback' } });
  });

  test('passes a public address in the shape net.connect expects', async () => {
    await expect(lookup(strict, '93.184.216.34')).resolves.toEqual({ err: null, address: '93.184.216.34', family: 4 });
    await expect(lookup(strict, '93.184.216.34', { all: true })).resolves.toEqual({
      err: null,
      address: [{ address: '93.184.216.34', family: 4 }],
      family: undefined,
    });
  });

  test('with private targets allowed it is a plain lookup', async () => {
    await expect(lookup(lax, '127.0.0.1')).resolves.toEqual({ err: null, address: '127.0.0.1', family: 4 });
  });
});
