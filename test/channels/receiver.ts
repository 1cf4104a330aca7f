/**
 * A callback receiver for the channel tests, on 127.0.0.1 in the test process: records every
 * request (path, headers, body) and answers with a scripted status, the way the API's callback
 * endpoints will be called by the stand-ins.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from '../support/eventually.js';

/** One request received. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Statuses to answer, in order; 200 once they run out. */
  answers: number[];
  /** Resolves with the first `n` requests to `path`, waiting up to `timeoutMs`. */
  waitFor(path: string, n?: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** Starts a receiver on a free port. */
export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const answers: number[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks) });
      res.statusCode = answers.shift() ?? 200;
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    answers,
    async waitFor(path, n = 1, timeoutMs = 30_000) {
      return eventually(
        () => {
          const got = received.filter((r) => r.path === path);
          return got.length >= n ? got.slice(0, n) : undefined;
        },
        `${n} requests to ${path}`,
        { timeoutMs, intervalMs: 20 },
      );
    },
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
