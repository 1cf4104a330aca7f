/**
 * An address of this machine that is not loopback, for tests that reach a service as a pod or VM
 * beside it would (docs/api.md section 11, `TRUST_PROXY`). The test makes its own: a veth pair
 * whose host end gets a random unique-local IPv6 address (RFC 4193) and whose peer sits in a
 * network namespace made for it (`ip netns add`; needs root and iproute2). Connections from this
 * machine to that address come from that address. Without root or `ip`, the machine's own
 * non-loopback address serves, if it has one; otherwise the caller gets the reason to skip.
 */
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { networkInterfaces } from 'node:os';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A borrowed address as a URL host (`[fd…::1]`), and how to give it back; or why there is none. */
export type Neighbour = { host: string; release(): Promise<void> } | { reason: string };

/** Runs `ip` with `args`; the error names the command and what `ip` printed. */
async function ip(...args: string[]): Promise<void> {
  try {
    await run('ip', args);
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    throw new Error(e.code === 'ENOENT' ? 'iproute2 (`ip`) is not installed' : `ip ${args.join(' ')}: ${(e.stderr ?? e.message).trim()}`);
  }
}

/** Makes the namespace and the veth pair; removes whatever it made when a step fails. */
async function vethPair(): Promise<{ host: string; release(): Promise<void> }> {
  if (process.getuid?.() !== 0) throw new Error('not root (a network namespace needs root)');
  const tag = randomBytes(3).toString('hex');
  const [namespace, outside, inside] = [`dms-test-${tag}`, `dmsv${tag}o`, `dmsv${tag}i`];
  const g = randomBytes(5).toString('hex');
  const address = `fd${g.slice(0, 2)}:${g.slice(2, 6)}:${g.slice(6, 10)}::1`;
  // Deleting the namespace deletes the peer inside it, and a veth pair goes with either end.
  const remove = () => {
    try {
      execFileSync('ip', ['netns', 'del', namespace], { stdio: 'ignore' });
    } catch {
      // not made, or already gone
    }
  };
  process.once('exit', remove);
  const release = async () => {
    process.off('exit', remove);
    remove();
  };
  try {
    await ip('netns', 'add', namespace);
    await ip('link', 'add', outside, 'type', 'veth', 'peer', 'name', inside, 'netns', namespace);
    await ip('-n', namespace, 'link', 'set', inside, 'up');
    await ip('link', 'set', outside, 'up');
    await ip('-6', 'addr', 'add', `${address}/64`, 'dev', outside, 'nodad');
  } catch (err) {
    await release();
    throw err;
  }
  return { host: `[${address}]`, release };
}

/** This machine's first non-loopback, non-link-local address as a URL host, if it has one. */
function ownAddress(): string | undefined {
  const pick = Object.values(networkInterfaces())
    .flat()
    .find((a) => a && !a.internal && !a.address.startsWith('fe80'));
  return pick && (pick.family === 'IPv6' ? `[${pick.address}]` : pick.address);
}

/**
 * A non-loopback address to reach this machine's services from: a veth pair of the test's own
 * when it can make one, else the machine's own address.
 * @returns the host and `release` (call it once done; it also runs at exit), or why there is none
 */
export async function borrowNeighbour(): Promise<Neighbour> {
  try {
    return await vethPair();
  } catch (err) {
    const own = ownAddress();
    if (own) return { host: own, release: async () => undefined };
    return { reason: `no veth pair (${(err as Error).message}) and no non-loopback address on this machine` };
  }
}
