/**
 * Reads V8 CPU profiles (`.cpuprofile` JSON) and attributes sampled time to code: the share of a
 * process's busy time spent in matching scripts and in the native work they called.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Time attributed to matching code, in microseconds of samples. */
export interface Attribution {
  /** Busy time: every sample except `(idle)`. Includes GC and `(program)`. */
  busyUs: number;
  /** Samples charged to matching code. */
  matchedUs: number;
  /** matchedUs / busyUs */
  share: number;
}

/** Script code of the application or its packages (not Node internals, not VM pseudo-frames). */
const isScript = (url: string) => url.startsWith('file://') || url.startsWith('/');

/**
 * Charges each sample to the innermost script frame on its stack (Node internals and native code
 * are charged to the script that called them, e.g. OpenSSL verification to jwa) and returns the
 * share charged to scripts whose url matches `pattern`.
 *
 * Innermost, not "anywhere on the stack": Express middlewares call `next()` synchronously, so the
 * whole downstream chain runs below the authentication middleware's frame; counting inclusive time
 * would charge the route handler to authentication.
 */
export function attribute(profile: CpuProfile, pattern: RegExp): Attribution {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const matched = new Set<number>();
  const idle = new Set<number>();
  const root = profile.nodes[0]!;
  // [node, does the innermost script frame above (or at) it match?]
  const stack: Array<[ProfileNode, boolean]> = [[root, false]];
  while (stack.length) {
    const [node, inherited] = stack.pop()!;
    const { url, functionName } = node.callFrame;
    const owner = isScript(url) ? pattern.test(url) : inherited;
    if (owner) matched.add(node.id);
    if (functionName === '(idle)') idle.add(node.id);
    for (const c of node.children ?? []) stack.push([byId.get(c)!, owner]);
  }
  let busyUs = 0;
  let matchedUs = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    if (idle.has(id)) return;
    busyUs += dt;
    if (matched.has(id)) matchedUs += dt;
  });
  return { busyUs, matchedUs, share: busyUs ? matchedUs / busyUs : NaN };
}

/** Reads the single `.cpuprofile` a process wrote into `dir`. */
export async function readProfile(dir: string): Promise<CpuProfile> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile'));
  if (files.length !== 1) throw new Error(`expected one .cpuprofile in ${dir}, found ${files.length}`);
  return JSON.parse(await readFile(join(dir, files[0]!), 'utf8')) as CpuProfile;
}

/**
 * The `n` functions with the most self time, as `name (file) share%` lines, for reports.
 */
export function topSelf(profile: CpuProfile, n: number): string[] {
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const byKey = new Map<string, number>();
  let busy = 0;
  for (const node of profile.nodes) {
    const t = self.get(node.id) ?? 0;
    if (node.callFrame.functionName === '(idle)') continue;
    busy += t;
    const file = node.callFrame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/(services|libs)\//, '$1/');
    const key = `${node.callFrame.functionName || '(anonymous)'} ${file ? `(${file})` : ''}`.trim();
    byKey.set(key, (byKey.get(key) ?? 0) + t);
  }
  return [...byKey.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, t]) => `${((t / busy) * 100).toFixed(1).padStart(5)}%  ${k}`);
}
