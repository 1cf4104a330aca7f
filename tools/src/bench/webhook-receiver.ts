/**
 * Webhook receiver of the delivery benchmark, in its own process (forked by the webhook scenario)
 * so receiving never shares an event loop with the harness: answers every POST with 204 after
 * reading the body, and reports on IPC how many deliveries arrived.
 * Messages: in `'count'` → out `{ count }`; it sends `{ port }` once listening.
 */
import { createServer } from 'node:http';

let count = 0;
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (req.method === 'POST') count++;
    res.writeHead(req.method === 'POST' ? 204 : 405).end();
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  process.send!({ port: (server.address() as { port: number }).port });
});
process.on('message', (msg) => {
  if (msg === 'count') process.send!({ count });
});
process.on('disconnect', () => process.exit(0));
