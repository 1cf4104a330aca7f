/**
 * Answers to requests Node's HTTP parser refuses before any handler runs (docs/api.md section 3).
 * Node's own answer to a request line and headers over its limit (16 KiB, `--max-http-header-size`)
 * is a bare `431` without a body or any header; a service installs `answerHeaderOverflow` so the
 * client gets the service's JSON error, a request id and the security headers every other answer
 * carries. Other parse errors keep Node's answers (400, 408) and a reset connection stays reset.
 */
import { STATUS_CODES, type Server } from 'node:http';
import type { Socket } from 'node:net';

/** The security headers of every answer written outside the application (as helmet sets them). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Referrer-Policy': 'no-referrer',
  'Strict-Transport-Security': 'max-age=31536000; includeSubDomains',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
};

/** What a service answers an oversized request: its body and content type, and its request-id header. */
export interface OverflowAnswer {
  contentType: string;
  body: string;
  headers?: Record<string, string>;
}

/**
 * Makes `server` answer a request whose request line and headers exceed Node's limit with
 * `431` and `answer()`'s body, the security headers and `Connection: close`.
 */
export function answerHeaderOverflow(server: Server, answer: () => OverflowAnswer): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    if (err.code !== 'HPE_HEADER_OVERFLOW') {
      // Node's default answers when a listener exists no more: the same bare status lines.
      const status = err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
      return void socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n\r\n`);
    }
    const { contentType, body, headers = {} } = answer();
    const all = { ...SECURITY_HEADERS, ...headers, 'Content-Type': contentType, 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' };
    const head = Object.entries(all)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\r\n');
    socket.end(`HTTP/1.1 431 ${STATUS_CODES[431]}\r\n${head}\r\n\r\n${body}`);
  });
}
