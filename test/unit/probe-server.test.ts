/**
 * The HTTP port of the dispatcher and the worker (`createProbeServer` of @dms/metrics, the one
 * place both build it; docs/api.md section 1): each probe's answer, and `nosniff` on every answer,
 * the metrics text and the errors included. Served on 127.0.0.1 in the test process.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Counter, Registry, createProbeServer } from '@dms/metrics';

let base: string;
let ready = true;
const server = (() => {
  const registry = new Registry();
  new Counter({ name: 'probe_test_total', help: 'a counter of this test', registers: [registry] }).inc();
  return createProbeServer(registry, async () => ready);
})();

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('every answer of the probe port is nosniff', () => {
  test.each([
    ['GET', '/healthz', 200, { status: 'ok' }],
    ['GET', '/readyz', 200, { status: 'ready' }],
    ['GET', '/no-such-path', 404, { status: 'not found' }],
    ['POST', '/healthz', 405, { status: 'method not allowed' }],
  ])('%s %s: %i', async (method, path, status, body) => {
    const res = await fetch(`${base}${path}`, { method });
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.json()).toEqual(body);
  });

  test('/readyz while not ready: 503', async () => {
    ready = false;
    try {
      const res = await fetch(`${base}/readyz`);
      expect(res.status).toBe(503);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    } finally {
      ready = true;
    }
  });

  test('/metrics: the Prometheus text of the registry', async () => {
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.text()).toMatch(/^probe_test_total 1$/m);
  });
});
