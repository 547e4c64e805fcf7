import { type Server, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorBody } from './http-error.ts';

/**
 * Answers the requests Node's HTTP parser rejects before any app sees them (a request line or
 * headers over the limit, a request that took too long to arrive, malformed HTTP) with the
 * platform's JSON error body, where Node would write a bare status line.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A reset connection has no one to answer; a started response cannot take another.
    const answering = (socket as Duplex & { _httpMessage?: unknown })._httpMessage !== undefined;
    if (error.code === 'ECONNRESET' || !socket.writable || answering) {
      socket.destroy();
      return;
    }
    const status = statusOf(error.code);
    const body = JSON.stringify(errorBody(status, messageOf(status)));
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}

function statusOf(code: string | undefined): number {
  if (code === 'HPE_HEADER_OVERFLOW') return 431;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408;
  return 400;
}

function messageOf(status: number): string {
  if (status === 431) return 'the request line or headers are over the size limit';
  if (status === 408) return 'the request did not arrive in time';
  return 'malformed HTTP request';
}
