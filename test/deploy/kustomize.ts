/**
 * A small Kustomize renderer for the features deploy/k8s uses, so the overlays can be checked
 * without kubectl: `resources` (files and directories with their own kustomization), `namespace`,
 * `labels` (without selectors), `images` and `patches` given as strategic-merge patch files.
 * Anything else in a kustomization.yaml is refused, so a manifest never silently renders
 * differently here than in `kubectl kustomize`.
 *
 * Strategic merge follows the Kubernetes rules for the fields our patches touch: maps merge
 * recursively, lists of named items (containers, env, ports, volumes…) merge by `name`, other
 * lists are replaced.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

/** A Kubernetes object as parsed from YAML. */
export type Manifest = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> } } & Record<
  string,
  unknown
>;

const SUPPORTED = new Set(['apiVersion', 'kind', 'resources', 'namespace', 'labels', 'images', 'patches']);

/** Parses every YAML document of `file` (empty documents skipped). @throws on YAML errors */
export function readYamlDocuments(file: string): unknown[] {
  const docs = parseAllDocuments(readFileSync(file, 'utf8'));
  return docs
    .map((d) => {
      if (d.errors.length) throw new Error(`${file}: ${d.errors[0]!.message}`);
      return d.toJS() as unknown;
    })
    .filter((d) => d !== null && d !== undefined);
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Strategic merge of `patch` into `base` (new object; inputs untouched). */
export function strategicMerge(base: unknown, patch: unknown): unknown {
  if (isObj(base) && isObj(patch)) {
    const out: Obj = { ...base };
    for (const [k, v] of Object.entries(patch)) out[k] = k in base ? strategicMerge(base[k], v) : v;
    return out;
  }
  if (Array.isArray(base) && Array.isArray(patch) && [...base, ...patch].every((i) => isObj(i) && typeof i.name === 'string')) {
    const out = base.map((i) => ({ ...(i as Obj) }));
    for (const item of patch as Obj[]) {
      const at = out.findIndex((i) => i.name === item.name);
      if (at >= 0) out[at] = strategicMerge(out[at], item) as Obj;
      else out.push(item);
    }
    return out;
  }
  return patch;
}

function key(m: Manifest): string {
  return `${m.kind}/${m.metadata.name}`;
}

/** Every container spec list of a workload (Deployment, Job). */
function podSpecOf(m: Manifest): Obj | undefined {
  const spec = m.spec as Obj | undefined;
  const template = spec?.template as Obj | undefined;
  return template?.spec as Obj | undefined;
}

/**
 * Renders the kustomization in `dir` into its list of objects.
 * @throws on an unsupported kustomization field, a patch matching nothing, or a duplicate object
 */
export function renderKustomization(dir: string): Manifest[] {
  const kfile = join(dir, 'kustomization.yaml');
  const k = readYamlDocuments(kfile)[0] as Obj;
  for (const field of Object.keys(k)) if (!SUPPORTED.has(field)) throw new Error(`${kfile}: unsupported field ${field}`);

  let objects: Manifest[] = [];
  for (const entry of (k.resources as string[] | undefined) ?? []) {
    const path = resolve(dir, entry);
    if (statSync(path).isDirectory()) objects.push(...renderKustomization(path));
    else objects.push(...(readYamlDocuments(path) as Manifest[]));
  }
  const seen = new Set<string>();
  for (const o of objects) {
    if (seen.has(key(o))) throw new Error(`${dir}: duplicate ${key(o)}`);
    seen.add(key(o));
  }

  for (const p of (k.patches as Array<{ path?: string }> | undefined) ?? []) {
    if (!p.path || Object.keys(p).length !== 1) throw new Error(`${kfile}: only file patches are supported`);
    for (const patch of readYamlDocuments(resolve(dir, p.path)) as Manifest[]) {
      const at = objects.findIndex((o) => key(o) === key(patch) && o.apiVersion === patch.apiVersion);
      if (at < 0) throw new Error(`${p.path}: patch target ${key(patch)} not found`);
      objects[at] = strategicMerge(objects[at], patch) as Manifest;
    }
  }

  for (const set of (k.labels as Array<{ pairs: Record<string, string>; includeSelectors?: boolean }> | undefined) ?? []) {
    if (set.includeSelectors) throw new Error(`${kfile}: labels with includeSelectors are not supported`);
    objects = objects.map((o) => ({ ...o, metadata: { ...o.metadata, labels: { ...o.metadata.labels, ...set.pairs } } }));
  }

  if (typeof k.namespace === 'string') {
    objects = objects.map((o) => ({ ...o, metadata: { ...o.metadata, namespace: k.namespace as string } }));
  }

  for (const img of (k.images as Array<{ name: string; newName?: string; newTag?: string }> | undefined) ?? []) {
    let used = false;
    for (const o of objects) {
      const pod = podSpecOf(o);
      for (const c of [...((pod?.containers as Obj[]) ?? []), ...((pod?.initContainers as Obj[]) ?? [])]) {
        const [name] = String(c.image).split(':');
        if (name !== img.name) continue;
        used = true;
        c.image = `${img.newName ?? img.name}${img.newTag ? `:${img.newTag}` : ''}`;
      }
    }
    if (!used) throw new Error(`${kfile}: image ${img.name} is used by no container`);
  }
  return objects;
}

/** Directory of deploy/k8s (relative to this file). */
export const K8S_DIR = resolve(dirname(new URL(import.meta.url).pathname), '../../deploy/k8s');
