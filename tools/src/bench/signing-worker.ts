/**
 * Worker thread of the signing ceiling: signs a JWS signing input with the issuer's private key in
 * a tight loop (`crypto.sign`, the primitive oidc-provider's JOSE library ends in), first for the
 * warm-up, then for the measured window, and reports how many signatures it made and their
 * latencies (ms).
 */
import { createPrivateKey, sign, type JsonWebKey } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';

/** What each worker is given. */
export interface SigningJob {
  jwk: JsonWebKey & { alg: string };
  signingInput: string;
  warmupSec: number;
  durationSec: number;
}

const job = workerData as SigningJob;
const key = createPrivateKey({ key: job.jwk, format: 'jwk' });
const data = Buffer.from(job.signingInput);
const ecdsa = job.jwk.alg.startsWith('ES');

function loop(seconds: number, latencies?: number[]): number {
  const end = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9));
  let n = 0;
  for (let t = process.hrtime.bigint(); t < end;) {
    // JWS (RFC 7515) ECDSA signatures are r||s (IEEE P1363), not DER.
    sign('sha256', data, ecdsa ? { key, dsaEncoding: 'ieee-p1363' } : key);
    const after = process.hrtime.bigint();
    latencies?.push(Number(after - t) / 1e6);
    t = after;
    n++;
  }
  return n;
}

loop(job.warmupSec);
const latencies: number[] = [];
const count = loop(job.durationSec, latencies);
parentPort!.postMessage({ count, latencies });
