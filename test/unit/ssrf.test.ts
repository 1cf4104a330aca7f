/**
 * SSRF guard for tenant-chosen URLs (docs/api.md section 7): one address of each row of the IANA
 * IPv4 and IPv6 Special-Purpose Address Registries is refused and named, IPv6 forms carrying an
 * IPv4 address are judged by it, range edges fall on the right side, IPv4-mapped IPv6 is judged by its IPv4
 * address, public addresses pass, and the URL checks that need no DNS (IP-literal hosts, schemes,
 * user-info) answer as documented. Nothing here resolves a host name.
 */
import { describe, expect, test } from '@jest/globals';
import { ForbiddenTargetError, assertPublicAddress, checkTargetUrl, guardedLookup, nonPublicRange, resolveAll } from '../../libs/ssrf/src/index.js';

const strict = { allowPrivate: false };
const lax = { allowPrivate: true };

describe('nonPublicRange: one address of every row of the IANA special-purpose registries is refused', () => {
  // [address, the block's name, the registry row it stands for]
  test.each([
    ['0.0.0.0', 'unspecified', '0.0.0.0/32 this host'],
    ['0.1.2.3', 'unspecified', '0.0.0.0/8 this network'],
    ['10.255.255.255', 'private', '10.0.0.0/8'],
    ['100.64.0.0', 'carrierGradeNat', '100.64.0.0/10 shared address space'],
    ['100.127.255.255', 'carrierGradeNat', '100.64.0.0/10, last address'],
    ['127.255.255.254', 'loopback', '127.0.0.0/8'],
    ['169.254.169.254', 'linkLocal', '169.254.0.0/16 (the metadata service)'],
    ['172.16.0.0', 'private', '172.16.0.0/12, first address'],
    ['172.31.255.255', 'private', '172.16.0.0/12, last address'],
    ['192.0.0.200', 'ietfProtocolAssignments', '192.0.0.0/24'],
    ['192.0.0.1', 'ipv4ServiceContinuity', '192.0.0.0/29'],
    ['192.0.0.8', 'dummy', '192.0.0.8/32'],
    ['192.0.0.9', 'pcpAnycast', '192.0.0.9/32'],
    ['192.0.0.10', 'turnAnycast', '192.0.0.10/32'],
    ['192.0.0.170', 'nat64Discovery', '192.0.0.170/32'],
    ['192.0.0.171', 'nat64Discovery', '192.0.0.171/32'],
    ['192.0.2.1', 'documentation', '192.0.2.0/24 TEST-NET-1'],
    ['192.31.196.1', 'as112', '192.31.196.0/24 AS112-v4'],
    ['192.52.193.1', 'amt', '192.52.193.0/24 AMT'],
    ['192.88.99.1', '6to4RelayAnycast', '192.88.99.0/24 deprecated 6to4 relay anycast'],
    ['192.88.99.2', '6a44RelayAnycast', '192.88.99.2/32 6a44 relay anycast'],
    ['192.168.1.1', 'private', '192.168.0.0/16'],
    ['192.175.48.1', 'as112', '192.175.48.0/24 direct delegation AS112'],
    ['198.19.255.255', 'benchmarking', '198.18.0.0/15'],
    ['198.51.100.7', 'documentation', '198.51.100.0/24 TEST-NET-2'],
    ['203.0.113.9', 'documentation', '203.0.113.0/24 TEST-NET-3'],
    ['239.255.255.250', 'multicast', '224.0.0.0/4 (multicast registry)'],
    ['240.0.0.1', 'reserved', '240.0.0.0/4'],
    ['255.255.255.255', 'broadcast', '255.255.255.255/32 limited broadcast'],
    ['::', 'unspecified', '::/128'],
    ['::1', 'loopback', '::1/128'],
    ['::ffff:7f00:1', 'loopback', '::ffff:0:0/96 IPv4-mapped (judged as 127.0.0.1)'],
    ['64:ff9b::a9fe:a9fe', 'linkLocal', '64:ff9b::/96 NAT64 (judged as 169.254.169.254)'],
    ['64:ff9b:1::a9fe:a9fe', 'nat64LocalUse', '64:ff9b:1::/48 local-use NAT64'],
    ['100::1', 'discard', '100::/64 discard-only'],
    ['100:0:0:1::1', 'dummy', '100:0:0:1::/64 dummy prefix'],
    ['2001:1ff::1', 'ietfProtocolAssignments', '2001::/23'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo', '2001::/32 Teredo'],
    ['2001:1::1', 'pcpAnycast', '2001:1::1/128'],
    ['2001:1::2', 'turnAnycast', '2001:1::2/128'],
    ['2001:1::3', 'dnsSdAnycast', '2001:1::3/128'],
    ['2001:2::1', 'benchmarking', '2001:2::/48'],
    ['2001:3::1', 'amt', '2001:3::/32'],
    ['2001:4:112::1', 'as112', '2001:4:112::/48 AS112-v6'],
    ['2001:10::1', 'orchid', '2001:10::/28 deprecated ORCHID'],
    ['2001:20::1', 'orchidV2', '2001:20::/28 ORCHIDv2'],
    ['2001:30::1', 'droneRemoteId', '2001:30::/28 drone remote ID'],
    ['2001:db8::1', 'documentation', '2001:db8::/32'],
    ['2002:808:808::1', '6to4', '2002::/16 6to4 (a public IPv4 inside)'],
    ['2620:4f:8000::1', 'as112', '2620:4f:8000::/48 direct delegation AS112'],
    ['3fff::1', 'documentation', '3fff::/20'],
    ['5f00::1', 'srv6', '5f00::/16 SRv6 SIDs'],
    ['fd00:ec2::254', 'uniqueLocal', 'fc00::/7 (AWS metadata)'],
    ['fc00::1', 'uniqueLocal', 'fc00::/7, first block'],
    ['fe80::1', 'linkLocal', 'fe80::/10'],
    ['fe80::1%eth0', 'linkLocal', 'fe80::/10 with a zone'],
    ['febf:ffff::1', 'linkLocal', 'fe80::/10, last block'],
    ['fec0::1', 'siteLocal', 'fec0::/10 deprecated site-local'],
    ['ff0e::1', 'multicast', 'ff00::/8'],
    ['::ffff:0:7f00:1', 'reserved', '::ffff:0:0:0/96 (outside 2000::/3)'],
    ['fbff::1', 'reserved', 'unassigned (outside 2000::/3)'],
  ])('%s is %s (%s)', (address, range) => {
    expect(nonPublicRange(address)).toBe(range);
  });

  test.each([
    ['::127.0.0.1', 'loopback'],
    ['::a00:1', 'private'],
    ['::8.8.8.8', 'ipv4Compatible'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::c0a8:1', 'private'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:a9fe:a9fe::1', 'linkLocal'],
    ['2002:c000:0201::1', 'documentation'],
  ])('an IPv4-compatible, NAT64 or 6to4 address %s is judged by the IPv4 address it carries first: %s', (address, range) => {
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
    // NAT64's well-known prefix is globally reachable (DNS64 on an IPv6-only host): a public IPv4 inside passes
    '64:ff9b::808:808',
    '2001:200::1',
    '2620:4f:7fff::1',
    '2c0f:fb50:4003::1',
    '3ffe:ffff::1',
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
    // Found by testers: accepted before every registry row was refused.
    ['https://[::127.0.0.1]/', 'host [::7f00:1] resolves to a non-public address (loopback)'],
    ['https://[::a00:1]/', 'host [::a00:1] resolves to a non-public address (private)'],
    ['https://[64:ff9b:1::a9fe:a9fe]/', 'host [64:ff9b:1::a9fe:a9fe] resolves to a non-public address (nat64LocalUse)'],
    ['https://[fec0::1]/', 'host [fec0::1] resolves to a non-public address (siteLocal)'],
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
    // dns.lookup answers these literals as themselves: the address it gives is the one judged.
    await expect(lookup(strict, '::127.0.0.1', { family: 6 })).resolves.toMatchObject({ err: { range: 'loopback' } });
    await expect(lookup(strict, 'fec0::1', { family: 6 })).resolves.toMatchObject({ err: { range: 'siteLocal' } });
    await expect(lookup(strict, '64:ff9b:1::a9fe:a9fe', { family: 6 })).resolves.toMatchObject({ err: { range: 'nat64LocalUse' } });
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
