/**
 * Server-side request forgery (SSRF) guard for outbound requests to tenant-chosen URLs (webhook
 * endpoints and their OAuth token endpoints, docs/api.md section 7).
 *
 * Only globally routable unicast addresses may be contacted. Every block of the IANA IPv4 and IPv6
 * Special-Purpose Address Registries is refused (ranges.ts: loopback, private, link-local with the
 * 169.254.169.254 metadata service, unique-local with AWS's fd00:ec2::254, carrier-grade NAT,
 * documentation, benchmarking, NAT64 local-use, Teredo, 6to4…), with multicast, site-local and the
 * unassigned IPv6 space; an IPv6 address carrying an IPv4 one (IPv4-mapped, IPv4-compatible,
 * NAT64, 6to4) is judged by the IPv4 address first.
 *
 * The check runs twice: when a URL is registered (`checkTargetUrl`, friendly 400s) and again when
 * a connection is opened (`guardedLookup`, `assertPublicAddress`), because DNS can change between
 * the two (DNS rebinding): the address actually dialled is the one that is checked.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { nonPublicRange } from './ranges.js';

export { IPV4_BLOCKS, IPV6_BLOCKS, nonPublicRange } from './ranges.js';

/** Raised when a host resolves to, or is, an address that must not be contacted. */
export class ForbiddenTargetError extends Error {
  readonly code = 'ERR_FORBIDDEN_TARGET';
  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: string,
  ) {
    super(`${host} resolves to ${address} (${range}), which is not a public address`);
    this.name = 'ForbiddenTargetError';
  }
}

/**
 * Throws unless `address` is public.
 * @throws ForbiddenTargetError naming the range
 */
export function assertPublicAddress(host: string, address: string): void {
  const range = nonPublicRange(address);
  if (range) throw new ForbiddenTargetError(host, address, range);
}

/** Strips the brackets of an IPv6 URL host (`[::1]` -> `::1`). */
function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** Resolves `host` to all its addresses (an IP literal resolves to itself). */
export async function resolveAll(host: string): Promise<string[]> {
  const bare = bareHost(host);
  if (isIP(bare)) return [bare];
  return new Promise((resolve, reject) => {
    dnsLookup(bare, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses.map((a) => a.address))));
  });
}

/** Options of `checkTargetUrl`. */
export interface TargetPolicy {
  /** `ALLOW_PRIVATE_WEBHOOK_TARGETS`: permits `http` and non-public addresses (local development, tests). */
  allowPrivate: boolean;
}

/**
 * Checks a URL a tenant wants the platform to call: absolute, `https` (or `http` when private
 * targets are allowed), no user-info, a port that can be connected to (not 0), and, unless private targets are allowed, a host whose every
 * resolved address is public.
 * @returns null when acceptable, otherwise a sentence explaining why not (for a 400 message)
 */
export async function checkTargetUrl(value: string, policy: TargetPolicy): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  const schemes = policy.allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) return policy.allowPrivate ? 'must be an http or https URL' : 'must be an https URL';
  if (url.username || url.password) return 'must not contain user information';
  if (!url.hostname) return 'must name a host';
  // Port 0 cannot be connected to (a socket asking for it gets an error or, on some stacks, a random port).
  if (url.port === '0') return 'must not use port 0';
  if (policy.allowPrivate) return null;
  let addresses: string[];
  try {
    addresses = await resolveAll(url.hostname);
  } catch {
    return `host ${url.hostname} could not be resolved`;
  }
  if (addresses.length === 0) return `host ${url.hostname} could not be resolved`;
  for (const address of addresses) {
    const range = nonPublicRange(address);
    if (range) return `host ${url.hostname} resolves to a non-public address (${range})`;
  }
  return null;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for `net.connect`/`tls.connect` (and so for an undici Agent's `connect.lookup`) that
 * resolves like `dns.lookup` and fails with `ForbiddenTargetError` when any resolved address is not
 * public, so the socket is never opened towards it. With `allowPrivate` it is plain `dns.lookup`.
 * IP-literal hosts never reach a lookup function: callers check those with `assertPublicAddress`.
 */
export function guardedLookup(policy: TargetPolicy) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      if (!policy.allowPrivate) {
        for (const { address } of addresses) {
          const range = nonPublicRange(address);
          if (range) return callback(new ForbiddenTargetError(hostname, address, range), []);
        }
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}
