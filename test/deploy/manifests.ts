/**
 * Loading the deployment files the tests check: docker-compose.yml and the rendered Kustomize
 * overlays of deploy/k8s.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from '@dms/tools/processes';
import { K8S_DIR, renderKustomization, type Manifest } from './kustomize.js';

/** A Compose service as far as the tests read it. */
export type ComposeService = {
  image?: string;
  build?: { context: string; dockerfile: string; target: string };
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  environment?: Record<string, string>;
  restart?: string;
  read_only?: boolean;
  cap_drop?: string[];
};

/** docker-compose.yml as Compose sees it (YAML merge keys resolved). */
export function loadCompose(): { services: Record<string, ComposeService> } {
  return parse(readFileSync(join(REPO_ROOT, 'docker-compose.yml'), 'utf8'), { merge: true });
}

/** The base and the production overlay, rendered. */
export function renderedOverlays(): Record<'base' | 'production', Manifest[]> {
  return { base: renderKustomization(join(K8S_DIR, 'base')), production: renderKustomization(join(K8S_DIR, 'overlays', 'production')) };
}

/** A container as far as the tests read it. */
export type Container = {
  name: string;
  image: string;
  env?: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string }; configMapKeyRef?: unknown } }>;
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  ports?: Array<{ name?: string; containerPort: number }>;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
  securityContext?: { runAsNonRoot?: boolean; readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean; capabilities?: { drop?: string[] } };
};

/** The pod spec of a Deployment or Job. */
export function podSpec(m: Manifest): { containers: Container[]; securityContext?: { runAsNonRoot?: boolean }; volumes?: unknown[] } {
  return (m.spec as { template: { spec: ReturnType<typeof podSpec> } }).template.spec;
}

/** Finds `kind/name` in `objects`. @throws when absent */
export function find(objects: Manifest[], kind: string, name: string): Manifest {
  const m = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!m) throw new Error(`${kind}/${name} not rendered`);
  return m;
}

/**
 * The environment variable names a container receives: its `env` entries plus the keys of the
 * ConfigMaps it loads with `envFrom`.
 */
export function containerEnvNames(objects: Manifest[], c: Container): Set<string> {
  const names = new Set((c.env ?? []).map((e) => e.name));
  for (const source of c.envFrom ?? []) {
    if (!source.configMapRef) throw new Error('only ConfigMaps are loaded with envFrom (secrets are referenced key by key)');
    const cm = find(objects, 'ConfigMap', source.configMapRef.name);
    for (const k of Object.keys((cm.data as Record<string, string>) ?? {})) names.add(k);
  }
  return names;
}
