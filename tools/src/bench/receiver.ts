/**
 * A local webhook receiver for the delivery scenarios: webhook-receiver.ts forked into its own
 * process (so receiving never shares an event loop with the harness), answering 204.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const RECEIVER = fileURLToPath(new URL('./webhook-receiver.js', import.meta.url));

/** A running receiver: its URL, how many deliveries it has received so far, and `stop()`. */
export interface Receiver {
  url: string;
  /** Process id of the receiver (for its CPU time). */
  pid: number;
  count(): Promise<number>;
  stop(): void;
}

/** Forks the receiver and resolves once it listens on a free loopback port. */
export function startReceiver(): Promise<Receiver> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = fork(RECEIVER, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.once('error', reject);
    child.once('message', (msg: { port: number }) => {
      resolve({
        url: `http://127.0.0.1:${msg.port}/hooks`,
        pid: child.pid!,
        count: () =>
          new Promise((res) => {
            child.once('message', (m: { count: number }) => res(m.count));
            child.send('count');
          }),
        stop: () => void child.disconnect(),
      });
    });
  });
}
