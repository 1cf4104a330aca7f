/**
 * The network of `npm run ha:verify`: one Linux network namespace per database node, joined by a
 * bridge in the host's namespace (where HAProxy, PgBouncer and the services run), so a node can
 * be cut off by taking its link down, as a failed switch port or a partition would. Names carry a
 * per-run id, and `remove` deletes only what `createNetwork` made.
 */
import { sh } from './proc.mjs';

/** @typedef {{ name: string, ns: string, ip: string, hostLink: string }} Node a database node's namespace and address */

/** A free /24 in 10.200.0.0/13, the first with no address or route of this host in it. */
async function freeSubnet() {
  const used = await sh('ip', ['-4', '-o', 'route', 'show', 'table', 'all']);
  const addrs = await sh('ip', ['-4', '-o', 'addr', 'show']);
  for (let i = 0; i < 64; i++) {
    const prefix = `10.${200 + Math.floor(Math.random() * 8)}.${Math.floor(Math.random() * 256)}`;
    if (!used.includes(`${prefix}.`) && !addrs.includes(`${prefix}.`)) return prefix;
  }
  throw new Error('no free 10.200.0.0/13 subnet for the test network');
}

/**
 * Creates the bridge and `count` namespaces, node i (1-based) at `<prefix>.1i` on `eth0`.
 * @param runId short hexadecimal id of this run (at most 4 characters: interface names are 15 at most)
 * @returns {Promise<{ nodes: Node[], hostIp: string, cut: (node: Node) => Promise<string>, connect: (node: Node) => Promise<string>, remove: () => Promise<void> }>}
 */
export async function createNetwork(runId, count = 3) {
  const prefix = await freeSubnet();
  const bridge = `dh${runId}br`;
  /** @type {Node[]} */
  const nodes = [];
  /** @type {(() => Promise<unknown>)[]} */
  const undo = [];
  const remove = async () => {
    const steps = undo.splice(0).reverse();
    const failed = [];
    for (const step of steps) await step().catch((err) => failed.push(err.message));
    if (failed.length) throw new Error(`removing the test network: ${failed.join('; ')}`);
  };
  try {
    await sh('ip', ['link', 'add', bridge, 'type', 'bridge']);
    undo.push(() => sh('ip', ['link', 'del', bridge]));
    await sh('ip', ['addr', 'add', `${prefix}.1/24`, 'dev', bridge]);
    await sh('ip', ['link', 'set', bridge, 'up']);
    for (let i = 1; i <= count; i++) {
      const name = `n${i}`;
      const ns = `dmsha-${runId}-${name}`;
      const hostLink = `dh${runId}h${i}`;
      const nodeLink = `dh${runId}p${i}`;
      const ip = `${prefix}.1${i}`;
      await sh('ip', ['netns', 'add', ns]);
      undo.push(() => sh('ip', ['netns', 'del', ns]));
      await sh('ip', ['link', 'add', hostLink, 'type', 'veth', 'peer', 'name', nodeLink]);
      undo.push(() => sh('ip', ['link', 'del', hostLink]));
      await sh('ip', ['link', 'set', nodeLink, 'netns', ns]);
      await sh('ip', ['link', 'set', hostLink, 'master', bridge]);
      await sh('ip', ['link', 'set', hostLink, 'up']);
      const inNs = (...args) => sh('ip', ['netns', 'exec', ns, 'ip', ...args]);
      await inNs('link', 'set', 'lo', 'up');
      await inNs('link', 'set', nodeLink, 'name', 'eth0');
      await inNs('addr', 'add', `${ip}/24`, 'dev', 'eth0');
      await inNs('link', 'set', 'eth0', 'up');
      await inNs('route', 'add', 'default', 'via', `${prefix}.1`);
      nodes.push({ name, ns, ip, hostLink });
    }
  } catch (err) {
    await remove();
    throw err;
  }
  return {
    nodes,
    hostIp: `${prefix}.1`,
    /** Takes the node's link down: it reaches nobody and nobody reaches it. */
    cut: (node) => sh('ip', ['link', 'set', node.hostLink, 'down']),
    connect: (node) => sh('ip', ['link', 'set', node.hostLink, 'up']),
    remove,
  };
}
