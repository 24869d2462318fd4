import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorEnvelope } from './errors.ts';

/**
 * Requests Node's HTTP parser rejects before any route sees them (a malformed Content-Length, two
 * conflicting lengths, a bad chunk size, oversized headers, a header timeout) get the API's JSON
 * envelope instead of Node's bare "400 Bad Request". The connection is closed afterwards: after a
 * framing error the rest of the stream cannot be trusted.
 */

interface ParserError extends Error {
  code?: string;
}

const REASONS: Readonly<Record<number, string>> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

/** Status and message for a parser error code (llhttp's HPE_* and Node's ERR_HTTP_*). */
export function describeClientError(code: string | undefined): { status: 400 | 408 | 431; message: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, message: 'request headers too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, message: 'request timed out before its headers (or body) arrived' };
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return { status: 400, message: 'malformed HTTP request: invalid or conflicting Content-Length header' };
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_INVALID_CHUNK_SIZE':
      return { status: 400, message: 'malformed HTTP request: invalid Transfer-Encoding or chunk' };
    default:
      return { status: 400, message: `malformed HTTP request${code ? ` (${code})` : ''}` };
  }
}

export function clientErrorResponse(code: string | undefined): string {
  const { status, message } = describeClientError(code);
  const body = JSON.stringify({ error: { code: 'bad_input', message } } satisfies ErrorEnvelope);
  return (
    `HTTP/1.1 ${status} ${REASONS[status]}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

/** Installs the handler on a Node HTTP server (replacing Node's default reply, never adding to it). */
export function answerClientErrors(server: object): void {
  // @hono/node-server types its server as a union with HTTP/2; assay listens on node:http only.
  (server as Server).on('clientError', (err: ParserError, socket: Duplex) => {
    // As Node's own handler: answer only when nothing of a response went out on this socket yet.
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (err.code !== 'ECONNRESET' && socket.writable && !inFlight?.headersSent) {
      // end() flushes the reply first; a client that never closes its side is cut off shortly after.
      socket.end(clientErrorResponse(err.code));
      setTimeout(() => socket.destroy(), 1000).unref();
    } else socket.destroy();
  });
}
