/**
 * `npm run alerts:generate`: writes deploy/observability/prometheus-rule.yaml, the Kubernetes
 * `PrometheusRule` (Prometheus Operator, monitoring.coreos.com/v1) carrying exactly the groups of
 * deploy/observability/rules.yml, the one source of the alerts. test/observability checks the two
 * are equal, so an edit of rules.yml without regenerating fails the tests.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

const DIR = join(resolve(dirname(fileURLToPath(import.meta.url)), '..'), 'deploy', 'observability');
const rules = YAML.parse(readFileSync(join(DIR, 'rules.yml'), 'utf8'));
const resource = {
  apiVersion: 'monitoring.coreos.com/v1',
  kind: 'PrometheusRule',
  metadata: {
    name: 'dms-alerts',
    labels: { 'app.kubernetes.io/part-of': 'dms', 'app.kubernetes.io/component': 'alerts' },
  },
  spec: { groups: rules.groups },
};
const header = [
  '# Generated from rules.yml by `npm run alerts:generate` (scripts/prometheus-rule.mjs): edit rules.yml,',
  '# then regenerate. Apply with `kubectl apply -f deploy/observability/prometheus-rule.yaml` where the',
  "# Prometheus Operator runs; its Prometheus must select the rule's labels (ruleSelector).",
].join('\n');
writeFileSync(join(DIR, 'prometheus-rule.yaml'), `${header}\n${YAML.stringify(resource, { lineWidth: 0 })}`);
