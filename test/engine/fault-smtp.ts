/**
 * The SMTP server of the engine's fault test (docs/api.md section 13), the ground truth of what
 * customers received: a real SMTP server (smtp-server) that keeps every message's Message-ID,
 * behind a TCP front that can be switched, as a mail provider in trouble behaves, to:
 * - `ok`: every message is taken (after `delayMs`, so that hand-overs are in flight when a worker is killed);
 * - `defer`: every connection is greeted with `421`, and every message of a session opened before
 *   is answered `421` (RFC 5321 section 3.8: service not available, try later);
 * - `close`: every connection is closed before the greeting.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { SMTPServer } from 'smtp-server';

export type SmtpMode = 'ok' | 'defer' | 'close';

/** A running fault SMTP server. */
export interface FaultSmtp {
  url: string;
  mode: SmtpMode;
  /** How many times each Message-ID (without angle brackets) was taken. */
  received: Map<string, number>;
  close(): Promise<void>;
}

/** The refusal of the `defer` mode. */
const deferred = () => Object.assign(new Error('Service not available, try again later'), { responseCode: 421 });

/** Starts the server with messages taken after `delayMs` each. */
export async function faultSmtp(delayMs: number): Promise<FaultSmtp> {
  const received = new Map<string, number>();
  const state: FaultSmtp = { url: '', mode: 'ok', received, close: async () => {} };
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onConnect(_session, callback) {
      callback(state.mode === 'defer' ? deferred() : undefined);
    },
    // Sessions opened before the switch are deferred too, at their next message.
    onMailFrom(_address, _session, callback) {
      callback(state.mode === 'defer' ? deferred() : undefined);
    },
    onData(stream, _session, callback) {
      let head = '';
      stream.on('data', (chunk: Buffer) => {
        if (head.length < 4096) head += chunk.toString('latin1');
      });
      stream.on('end', () => {
        const id = /^Message-ID:\s*<([^>]+)>/im.exec(head)?.[1] ?? 'none';
        // Kept once the data is in, whether or not the client stays for the reply (a killed worker does not).
        received.set(id, (received.get(id) ?? 0) + 1);
        setTimeout(() => callback(), delayMs);
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const smtpPort = (smtp.server.address() as { port: number }).port;
  const sockets = new Set<Socket>();
  const front: Server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    if (state.mode === 'close') return void client.destroy();
    const upstream = createConnection({ host: '127.0.0.1', port: smtpPort });
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  state.url = `smtp://127.0.0.1:${(front.address() as { port: number }).port}`;
  state.close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => front.close(() => resolve()));
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  };
  return state;
}
