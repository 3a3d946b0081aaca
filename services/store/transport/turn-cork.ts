// Per-turn coalescing of a peer connection's writes.
//
// Contract: every frame written through writeInTurn() in one turn of the
// event loop (the current callback, its process.nextTick callbacks and its
// microtasks, e.g. several Ready batches of the node's loop) leaves the socket
// as one write: the first write of the turn corks the socket, and the socket
// is uncorked from process.nextTick, which runs once the microtask queue of
// the turn is drained and before the event loop polls again. Nothing waits
// for I/O or a timer, so no frame is delayed past its own turn. On a TLS
// socket the frames become one TLS record and one syscall instead of one
// each; on a TCP socket one writev. Order is kept (the stream's own buffer).

/** What writeInTurn needs of a socket (net.Socket and tls.TLSSocket fit). */
export interface CorkableSocket {
  cork(): void;
  uncork(): void;
  write(chunk: Uint8Array): boolean;
}

/** Sockets corked in the current turn. */
const corked = new WeakSet<CorkableSocket>();

function uncork(socket: CorkableSocket): void {
  corked.delete(socket);
  socket.uncork();
}

/** Writes `chunk` to `socket`, corked until the end of the current turn. */
export function writeInTurn(socket: CorkableSocket, chunk: Uint8Array): boolean {
  if (!corked.has(socket)) {
    corked.add(socket);
    socket.cork();
    process.nextTick(uncork, socket);
  }
  return socket.write(chunk);
}
