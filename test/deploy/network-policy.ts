/**
 * Evaluates Kubernetes NetworkPolicies (networking.k8s.io/v1 semantics) for a given connection,
 * so the tests can state "who may reach whom" instead of comparing YAML shapes:
 * a pod is isolated for a direction as soon as one policy selecting it lists that policy type;
 * an isolated pod accepts a connection when any rule of any selecting policy allows it.
 */
import type { Manifest } from './kustomize.js';

/** One end of a connection: a pod (labels, namespace labels, named ports) or an outside IPv4 address. */
export type Peer = { pod: Record<string, string>; namespace: Record<string, string>; ports?: Record<string, number> } | { ip: string };

type Selector = { matchLabels?: Record<string, string>; matchExpressions?: Array<{ key: string; operator: string; values?: string[] }> };
type PolicyPeer = { podSelector?: Selector; namespaceSelector?: Selector; ipBlock?: { cidr: string; except?: string[] } };
type PolicyPort = { port?: number | string; protocol?: string };
type Rule = { from?: PolicyPeer[]; to?: PolicyPeer[]; ports?: PolicyPort[] };
type PolicySpec = { podSelector: Selector; policyTypes?: string[]; ingress?: Rule[]; egress?: Rule[] };

/** Label selector semantics (an empty selector matches everything). */
export function matches(selector: Selector | undefined, labels: Record<string, string>): boolean {
  if (!selector) return true;
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(labels, e.key);
    const inValues = has && (e.values ?? []).includes(labels[e.key]!);
    const ok = { In: inValues, NotIn: !inValues, Exists: has, DoesNotExist: !has }[e.operator];
    if (ok === undefined) throw new Error(`unknown selector operator ${e.operator}`);
    if (!ok) return false;
  }
  return true;
}

function ipToInt(ip: string): number {
  return ip.split('.').reduce((n, part) => (n << 8) + Number(part), 0) >>> 0;
}

function inCidr(ip: string, cidr: string): boolean {
  const [base, bits] = cidr.split('/') as [string, string];
  const mask = Number(bits) === 0 ? 0 : (~0 << (32 - Number(bits))) >>> 0;
  return (ipToInt(ip) & mask) >>> 0 === (ipToInt(base) & mask) >>> 0;
}

function peerMatches(rulePeer: PolicyPeer, peer: Peer, policyNamespace: Record<string, string>): boolean {
  if ('ip' in peer) {
    if (!rulePeer.ipBlock) return false;
    return inCidr(peer.ip, rulePeer.ipBlock.cidr) && !(rulePeer.ipBlock.except ?? []).some((c) => inCidr(peer.ip, c));
  }
  if (rulePeer.ipBlock) return false;
  // podSelector alone: pods of the policy's namespace; with namespaceSelector: pods of those namespaces.
  const nsOk = rulePeer.namespaceSelector ? matches(rulePeer.namespaceSelector, peer.namespace) : sameNamespace(peer.namespace, policyNamespace);
  return nsOk && matches(rulePeer.podSelector, peer.pod);
}

function sameNamespace(a: Record<string, string>, b: Record<string, string>): boolean {
  return a['kubernetes.io/metadata.name'] === b['kubernetes.io/metadata.name'];
}

function portMatches(ports: PolicyPort[] | undefined, port: number, namedPorts: Record<string, number>): boolean {
  if (!ports || ports.length === 0) return true;
  return ports.some((p) => (p.protocol ?? 'TCP') === 'TCP' && (p.port === undefined || p.port === port || namedPorts[String(p.port)] === port));
}

/**
 * Whether `policies` (all in namespace `namespace`) let `source` open a TCP connection to `target`
 * on `port`. Both directions are checked: egress of the source when it is a pod of the namespace,
 * ingress of the target when it is.
 */
export function allows(policies: Manifest[], namespace: Record<string, string>, source: Peer, target: Peer, port: number): boolean {
  const specs = policies.filter((p) => p.kind === 'NetworkPolicy').map((p) => p.spec as PolicySpec);
  const direction = (subject: Peer, other: Peer, type: 'Ingress' | 'Egress'): boolean => {
    if ('ip' in subject || !sameNamespace(subject.namespace, namespace)) return true;
    const selecting = specs.filter((s) => matches(s.podSelector, subject.pod) && (s.policyTypes ?? ['Ingress']).includes(type));
    if (selecting.length === 0) return true;
    const named = type === 'Ingress' ? (subject.ports ?? {}) : 'ip' in other ? {} : (other.ports ?? {});
    return selecting.some((s) =>
      (type === 'Ingress' ? s.ingress : s.egress)?.some((rule) => {
        const peers = type === 'Ingress' ? rule.from : rule.to;
        const peerOk = !peers || peers.length === 0 || peers.some((rp) => peerMatches(rp, other, namespace));
        return peerOk && portMatches(rule.ports, port, named);
      }),
    );
  };
  return direction(source, target, 'Egress') && direction(target, source, 'Ingress');
}
