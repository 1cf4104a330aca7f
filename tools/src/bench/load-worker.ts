/**
 * Load generator process: runs autocannon against one endpoint, first a discarded warm-up, then
 * the measured fixed-duration run, and reports back over IPC. It runs in its own process (forked
 * by load.ts) so generating load never shares an event loop with the harness or the services.
 *
 * Latencies are taken from autocannon's per-response event as floats (its own histogram keeps
 * whole milliseconds, too coarse for sub-millisecond pages), for 2xx responses only.
 */
import autocannon from 'autocannon';
import type { LoadSpec, LoadWorkerResult } from './load.js';

function run(spec: LoadSpec, durationSec: number, record: boolean): Promise<Omit<LoadWorkerResult, 'warmupOk'>> {
  let latencies = new Float64Array(1 << 16);
  let n = 0;
  const statusCodes: Record<string, number> = {};
  let next = 0;
  const variants = spec.variants ?? [];
  const only = variants.length === 1 ? variants[0]! : {};
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const instance = autocannon(
      {
        url: only.path ? new URL(only.path, spec.url).href : spec.url,
        method: spec.method,
        connections: spec.connections,
        duration: durationSec,
        headers: { ...spec.headers, ...only.headers },
        body: only.body ?? spec.body,
        ...(spec.rate ? { overallRate: spec.rate } : {}),
        // Each request takes the next variant (e.g. another client's credentials), round-robin.
        // A single shape skips setupRequest, so autocannon can reuse one prebuilt request buffer.
        requests:
          variants.length < 2
            ? undefined
            : [
                {
                  setupRequest: (req: autocannon.Request) => {
                    const v = variants[next++ % variants.length]!;
                    return {
                      ...req,
                      ...(v.path ? { path: v.path } : {}),
                      ...(v.body !== undefined ? { body: v.body } : {}),
                      headers: { ...req.headers, ...v.headers },
                    };
                  },
                },
              ],
      },
      (err, result) => {
        if (err) return reject(err instanceof Error ? err : new Error(String(err)));
        const elapsedSec = Number(process.hrtime.bigint() - started) / 1e9;
        const ok = Object.entries(statusCodes).reduce((sum, [code, c]) => sum + (code.startsWith('2') ? c : 0), 0);
        resolve({
          ok,
          elapsedSec: result.duration || elapsedSec,
          statusCodes,
          errors: result.errors,
          timeouts: result.timeouts,
          latencies: record ? Array.from(latencies.subarray(0, n)) : [],
        });
      },
    );
    instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
      statusCodes[statusCode] = (statusCodes[statusCode] ?? 0) + 1;
      if (!record || statusCode < 200 || statusCode >= 300) return;
      if (n === latencies.length) {
        const grown = new Float64Array(latencies.length * 2);
        grown.set(latencies);
        latencies = grown;
      }
      latencies[n++] = responseTime;
    });
  });
}

process.once('message', async (spec: LoadSpec) => {
  try {
    const warmup = spec.warmupSec > 0 ? await run(spec, spec.warmupSec, false) : undefined;
    const result = await run(spec, spec.durationSec, true);
    process.send!({ result: { ...result, warmupOk: warmup?.ok ?? 0 } }, () => process.exit(0));
  } catch (err) {
    process.send!({ error: (err as Error).message }, () => process.exit(1));
  }
});
