/**
 * `node --expose-gc --import` preload of the personal-data scenario's measured API process. A
 * sample forces a full garbage collection, then appends `<epoch ms> <heapUsed + external bytes>`
 * to `BENCH_GC_PROBE_FILE`, so it is the memory still referenced at that moment (what a buffered
 * answer holds), not garbage the collector has not reached yet. Samples are taken every
 * `BENCH_GC_PROBE_MS` (default 20) ms, and, whatever the timers do, at the first write of each
 * HTTP response body and then every `BENCH_GC_PROBE_BYTES` (default 128 KiB) written: a download
 * is sampled while it is served however fast it goes. The timer is unref'd.
 * @throws at start when `BENCH_GC_PROBE_FILE` is set and the process lacks `--expose-gc`
 */
import { ServerResponse } from 'node:http';
import { openSync, writeSync } from 'node:fs';

const file = process.env.BENCH_GC_PROBE_FILE;
if (file) {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('gc-probe: BENCH_GC_PROBE_FILE needs node --expose-gc');
  const fd = openSync(file, 'a');
  const sample = () => {
    gc();
    const { heapUsed, external } = process.memoryUsage();
    writeSync(fd, `${Date.now()} ${heapUsed + external}\n`);
  };
  setInterval(sample, Number(process.env.BENCH_GC_PROBE_MS ?? 20)).unref();

  const step = Number(process.env.BENCH_GC_PROBE_BYTES ?? 128 * 1024);
  // Bytes each response has written, and the count at which it is sampled next.
  const written = new WeakMap<ServerResponse, { bytes: number; next: number }>();
  const write = ServerResponse.prototype.write as (this: ServerResponse, chunk: unknown, ...rest: unknown[]) => boolean;
  ServerResponse.prototype.write = function probedWrite(this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    const seen = written.get(this) ?? { bytes: 0, next: 0 };
    if (seen.bytes >= seen.next) {
      sample();
      seen.next = seen.bytes + step;
    }
    seen.bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : ((chunk as Uint8Array | null)?.length ?? 0);
    written.set(this, seen);
    return write.call(this, chunk, ...rest);
  } as typeof ServerResponse.prototype.write;
}
