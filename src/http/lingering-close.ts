/**
 * A lingering close, as nginx does it. A body over BODY_LIMIT_BYTES is answered (413) as soon as
 * it passes the limit, or when its headers declare it, while the rest is still arriving; the
 * connection then closes, as it cannot carry another request. Closed at once, the socket still
 * receives the rest of the body, to which the kernel answers with a reset, and a reset can
 * destroy the 413 on its way before the client reads it: the client sees EPIPE or ECONNRESET.
 * So after such an answer the server ends its side (the client gets the answer and a FIN), reads
 * on and discards what still comes, and closes only once the body has all arrived, the client
 * has closed, LINGER_BYTES more have arrived or LINGER_MS have passed. A client that sends its
 * whole body within those bounds always reads its answer; one that sends more may still be reset.
 */
import type { IncomingMessage } from 'node:http';

/** The most of a refused body the server reads and discards after answering. */
export const LINGER_BYTES = 4 * 1024 * 1024;
/** The longest the server goes on reading after answering. */
export const LINGER_MS = 2_000;

/**
 * Makes the connection of `request`, which is being answered before its body has all arrived and
 * will close after the answer (`Connection: close`), close lingering.
 */
export function lingerBeforeClosing(request: IncomingMessage): void {
  const socket = request.socket;
  const closeSoon = socket.destroySoon;
  // Node closes a connection it has answered with Connection: close by calling destroySoon() once
  // the answer is written: it ends our side and destroys the socket once that end is flushed.
  // This one does the same, only after lingering.
  socket.destroySoon = () => {
    if (request.complete) return closeSoon.call(socket);
    socket.end();
    let discarded = 0;
    let lingering = true;
    const close = () => {
      if (!lingering) return;
      lingering = false;
      clearTimeout(timer);
      socket.off('data', discard);
      closeSoon.call(socket);
    };
    // A `data` listener makes Node's HTTP parser read through it, after the parser has seen each chunk.
    const discard = (chunk: Buffer) => {
      discarded += chunk.length;
      if (request.complete || discarded > LINGER_BYTES) close();
    };
    const timer = setTimeout(close, LINGER_MS);
    socket.on('data', discard);
    socket.once('end', close);
    socket.once('close', close);
  };
}
