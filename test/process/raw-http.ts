/**
 * HTTP/1.1 over a raw socket, for what an HTTP client library hides: a request whose body arrives
 * in two parts (a slow upload keeps the request in flight for as long as the test wants) and
 * pipelining a second request on the same connection.
 */
import { connect, type Socket } from 'node:net';

/** One parsed response of a connection. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A connection that collects everything the server sends until it closes the connection. */
export interface RawConnection {
  socket: Socket;
  /** Writes bytes as they are. */
  write(data: string): void;
  /** Resolves with the responses once the server has closed the connection. */
  closed: Promise<RawResponse[]>;
}

/** Opens a connection to 127.0.0.1:`port`. @throws (rejects) when the connection is refused */
export function openConnection(port: number): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (data += chunk));
    const closed = new Promise<RawResponse[]>((res) => socket.on('close', () => res(parseResponses(data))));
    socket.once('error', reject);
    socket.once('connect', () => resolve({ socket, write: (d) => socket.write(d), closed }));
  });
}

/** The request line and headers of a request with a `Content-Length` body. */
export function requestHead(method: string, path: string, headers: Record<string, string>, bodyLength: number): string {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), `Content-Length: ${bodyLength}`];
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Splits a byte stream of responses (Content-Length or chunked bodies) into responses. */
export function parseResponses(raw: string): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = raw;
  while (rest.startsWith('HTTP/1.1 ')) {
    const headEnd = rest.indexOf('\r\n\r\n');
    const [statusLine, ...headerLines] = rest.slice(0, headEnd).split('\r\n');
    const headers = Object.fromEntries(headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    rest = rest.slice(headEnd + 4);
    let body = '';
    if (headers['transfer-encoding'] === 'chunked') {
      for (;;) {
        const sizeEnd = rest.indexOf('\r\n');
        const size = parseInt(rest.slice(0, sizeEnd), 16);
        body += rest.slice(sizeEnd + 2, sizeEnd + 2 + size);
        rest = rest.slice(sizeEnd + 2 + size + 2);
        if (size === 0) break;
      }
    } else {
      const length = Number(headers['content-length'] ?? 0);
      body = rest.slice(0, length);
      rest = rest.slice(length);
    }
    out.push({ status: Number(statusLine!.split(' ')[1]), headers, body });
  }
  return out;
}
