// A request node cannot parse (a header section past its limit, a malformed request line) is
// answered on its socket, and the connection closed, as Go's net/http server does it
// (closeWriteAndWait): the answer, then the write side closed, then the connection itself 500 ms
// later (Go's rstAvoidanceDelay) or once the client has closed its side. Closing at once, as node
// does by default, resets a connection whose client is still sending its request, and the client
// then loses the answer with the rest.
import type { Duplex } from 'node:stream';

/** Go's rstAvoidanceDelay. */
const CLOSE_DELAY_MS = 500;

/** The connections already answered: node reports the same error again for each chunk that follows. */
const answered = new WeakSet<Duplex>();

/**
 * Writes `response` (a whole HTTP/1.1 response) to the socket of a request that failed to parse,
 * and closes the connection gently; what the client still sends is discarded. False when this
 * connection was answered already (nothing is done).
 */
export function answerAndClose(socket: Duplex, response: string): boolean {
  if (answered.has(socket)) return false;
  answered.add(socket);
  if (!socket.writable) {
    socket.destroy();
    return true;
  }
  const timer = setTimeout(() => socket.destroy(), CLOSE_DELAY_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  // The client's end of the connection: it has read the answer, nothing more is to come.
  socket.once('end', () => socket.destroy());
  socket.end(response);
  return true;
}

/** Whether the connection has been answered by answerAndClose. */
export const wasAnswered = (socket: Duplex): boolean => answered.has(socket);

/** Go's errorHeaders: what net/http writes before the text of a request it refuses unread. */
const GO_ERROR_HEADERS = '\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n';

/** Go's answer to a request it cannot read: `HTTP/1.1 431 Request Header Fields Too Large` and that text again as the body. */
export const goErrorResponse = (statusLine: string): string => `HTTP/1.1 ${statusLine}${GO_ERROR_HEADERS}${statusLine}`;
