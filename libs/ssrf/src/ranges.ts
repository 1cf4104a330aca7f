/**
 * The address blocks a tenant-chosen URL may never reach: every row of the IANA IPv4 and IPv6
 * Special-Purpose Address Registries (RFC 6890 and the RFCs that updated them: 7335, 7526, 7534,
 * 7723, 8155, 8190, 9374, 9602, 9637, 9665, 9780, as the registries stood in 2025), multicast, the
 * deprecated IPv6 site-local block (RFC 3879) and, for IPv6, everything outside the global unicast
 * block 2000::/3 (the rest is unassigned or reserved by the IETF). ipaddr.js parses and matches.
 *
 * Four IPv6 forms carry an IPv4 address, which is judged by the IPv4 rules first, so
 * `::127.0.0.1` or `64:ff9b::a9fe:a9fe` are refused as `loopback` and `linkLocal`:
 * - IPv4-mapped `::ffff:0:0/96` (RFC 4291): a socket to it reaches the IPv4 address, so a public
 *   one passes;
 * - NAT64 `64:ff9b::/96` (RFC 6052, globally reachable in the registry: how IPv6-only hosts reach
 *   IPv4 ones through DNS64), a public one passes;
 * - IPv4-compatible `::/96` (deprecated by RFC 4291) and 6to4 `2002::/16` (deprecated by RFC 7526):
 *   refused whatever they carry (`ipv4Compatible`, `6to4`).
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type Row = [cidr: string, name: string];

/** The IPv4 Special-Purpose Address Registry, one row each, with multicast (224.0.0.0/4). */
export const IPV4_BLOCKS: readonly Row[] = [
  ['0.0.0.0/8', 'unspecified'], // "this network" (RFC 791), 0.0.0.0/32 "this host" within it
  ['10.0.0.0/8', 'private'], // RFC 1918
  ['100.64.0.0/10', 'carrierGradeNat'], // shared address space, RFC 6598
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'linkLocal'], // RFC 3927, the cloud metadata service 169.254.169.254
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'ietfProtocolAssignments'], // RFC 6890
  ['192.0.0.0/29', 'ipv4ServiceContinuity'], // DS-Lite, RFC 7335
  ['192.0.0.8/32', 'dummy'], // RFC 7600
  ['192.0.0.9/32', 'pcpAnycast'], // RFC 7723
  ['192.0.0.10/32', 'turnAnycast'], // RFC 8155
  ['192.0.0.170/31', 'nat64Discovery'], // 192.0.0.170 and .171, RFC 7050
  ['192.0.2.0/24', 'documentation'], // TEST-NET-1, RFC 5737
  ['192.31.196.0/24', 'as112'], // RFC 7535
  ['192.52.193.0/24', 'amt'], // RFC 7450
  ['192.88.99.0/24', '6to4RelayAnycast'], // deprecated, RFC 7526
  ['192.88.99.2/32', '6a44RelayAnycast'], // RFC 6751
  ['192.168.0.0/16', 'private'],
  ['192.175.48.0/24', 'as112'], // direct delegation AS112, RFC 7534
  ['198.18.0.0/15', 'benchmarking'], // RFC 2544
  ['198.51.100.0/24', 'documentation'], // TEST-NET-2
  ['203.0.113.0/24', 'documentation'], // TEST-NET-3
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'], // RFC 1112
  ['255.255.255.255/32', 'broadcast'],
];

/** The IPv6 Special-Purpose Address Registry, one row each, with link-scoped and multicast blocks. */
export const IPV6_BLOCKS: readonly Row[] = [
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::/96', 'ipv4Compatible'], // deprecated, RFC 4291 (carries an IPv4 address)
  ['::ffff:0:0/96', 'ipv4Mapped'], // carries an IPv4 address
  ['64:ff9b::/96', 'nat64'], // RFC 6052 (carries an IPv4 address)
  ['64:ff9b:1::/48', 'nat64LocalUse'], // RFC 8215
  ['100::/64', 'discard'], // RFC 6666
  ['100:0:0:1::/64', 'dummy'], // RFC 9780
  ['2001::/23', 'ietfProtocolAssignments'], // RFC 2928
  ['2001::/32', 'teredo'], // RFC 4380
  ['2001:1::1/128', 'pcpAnycast'], // RFC 7723
  ['2001:1::2/128', 'turnAnycast'], // RFC 8155
  ['2001:1::3/128', 'dnsSdAnycast'], // RFC 9665
  ['2001:2::/48', 'benchmarking'], // RFC 5180
  ['2001:3::/32', 'amt'], // RFC 7450
  ['2001:4:112::/48', 'as112'], // RFC 7535
  ['2001:10::/28', 'orchid'], // deprecated, RFC 4843
  ['2001:20::/28', 'orchidV2'], // RFC 7343
  ['2001:30::/28', 'droneRemoteId'], // RFC 9374
  ['2001:db8::/32', 'documentation'], // RFC 3849
  ['2002::/16', '6to4'], // RFC 3056, deprecated by RFC 7526 (carries an IPv4 address)
  ['2620:4f:8000::/48', 'as112'], // direct delegation AS112, RFC 7534
  ['3fff::/20', 'documentation'], // RFC 9637
  ['5f00::/16', 'srv6'], // segment routing SIDs, RFC 9602
  ['fc00::/7', 'uniqueLocal'], // RFC 4193, AWS's metadata service fd00:ec2::254
  ['fe80::/10', 'linkLocal'],
  ['fec0::/10', 'siteLocal'], // deprecated, RFC 3879
  ['ff00::/8', 'multicast'],
];

type Block<T extends ipaddr.IPv4 | ipaddr.IPv6> = { range: [T, number]; name: string };
const compile = <T extends ipaddr.IPv4 | ipaddr.IPv6>(rows: readonly Row[]) =>
  rows
    .map(([cidr, name]) => ({ range: ipaddr.parseCIDR(cidr) as [T, number], name }))
    // Longest prefix first: the most specific row names an address (2001::1 is teredo, not ietfProtocolAssignments).
    .sort((a, b) => b.range[1] - a.range[1]) as Block<T>[];
const V4 = compile<ipaddr.IPv4>(IPV4_BLOCKS);
const V6 = compile<ipaddr.IPv6>(IPV6_BLOCKS);
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number];

/** The IPv4 forms whose carried address passes when it is public. */
const PASS_WHEN_PUBLIC = new Set(['ipv4Mapped', 'nat64']);

/** The IPv4 address an IPv6 address of `block` carries, if the block carries one. */
function carried(ip: ipaddr.IPv6, block: string): ipaddr.IPv4 | undefined {
  const bytes = ip.toByteArray();
  if (block === '6to4') return new ipaddr.IPv4(bytes.slice(2, 6));
  if (block === 'ipv4Compatible' || block === 'ipv4Mapped' || block === 'nat64') return new ipaddr.IPv4(bytes.slice(12, 16));
  return undefined;
}

const v4Range = (ip: ipaddr.IPv4) => V4.find((b) => ip.match(b.range))?.name ?? null;

/**
 * `::127.0.0.1` → `::7f00:1`: ipaddr.js 1.x reads a dotted IPv4 tail only after `::ffff:` (and
 * ipaddr.js 2.x reads `::127.0.0.1` as IPv4-mapped), so any other IPv6 address written with one is
 * turned into hexadecimal groups first.
 */
function hexTail(address: string): string {
  const m = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (!m || isIP(address) !== 6) return address;
  const [a, b, c, d] = m[2]!.split('.').map(Number) as [number, number, number, number];
  return `${m[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

/**
 * Names the block `address` lies in (see the module comment), or null for a public unicast
 * address. An IPv6 address carrying an IPv4 one is named by the IPv4 address's block when that is
 * not public.
 * @param address an IPv4 (any form inet_aton reads: `0x7f.1`) or IPv6 literal, without brackets;
 *   anything else is `invalid`
 */
export function nonPublicRange(address: string): string | null {
  const text = hexTail(address);
  if (!ipaddr.isValid(text)) return 'invalid';
  const ip = ipaddr.parse(text);
  if (ip.kind() === 'ipv4') return v4Range(ip as ipaddr.IPv4);
  const v6 = ip as ipaddr.IPv6;
  const block = V6.find((b) => v6.match(b.range))?.name;
  const inner = block ? carried(v6, block) : undefined;
  if (inner) {
    const innerRange = v4Range(inner);
    if (innerRange) return innerRange;
    return PASS_WHEN_PUBLIC.has(block!) ? null : block!;
  }
  if (block) return block;
  return v6.match(GLOBAL_UNICAST) ? null : 'reserved';
}
