/**
 * Keeps node's HTTP/1.1 request parser running on the server's TLS connections.
 *
 * The fault (node 20): a request that arrives while the connection's previous answer is
 * still being flushed (the socket needs `drain`) makes node stop reading the socket and
 * pause the connection's parser, its guard against a flood of pipelined requests. The
 * TLS layer still hands over the records it had already taken off the network (a
 * request's body, when its records came in one read with the head); the paused parser
 * rejects them (`HPE_PAUSED`), and node destroys the connection. The client's request
 * ends with EOF and no answer, and an answer still being written is cut: seen with
 * client-go (helm) posting a Secret right after reading a large list from a busy server.
 *
 * Contract: on a connection `keepParserRunning` is applied to, the parser is never
 * paused. The socket still stops reading when node's guard says so, and node resumes it
 * on `drain` as before (resuming a parser that is not paused does nothing); the records
 * the TLS layer delivers meanwhile are parsed, as a pipelined request that came in the
 * same read as the one before always is. The parser object is pooled by node: the
 * override is removed when the socket gives the parser up (close, upgrade), and only by
 * the socket that set it.
 */
import type { Socket } from "node:net";

interface Parser {
  pause(): void;
}

type ParserSocket = Socket & { parser?: Parser | null };

/** The override every connection installs. */
function parseOnWhilePaused(): void {}
/** parser → the socket that installed the override on it; socket → how it takes it off. */
const owners = new WeakMap<Parser, Socket>();
const releases = new WeakMap<Socket, () => void>();

/** Applies the contract to `socket`, a connection the HTTP server has just taken on (it holds its parser). */
export function keepParserRunning(socket: Socket): void {
  const parser = (socket as ParserSocket).parser;
  if (!parser || typeof parser.pause !== "function") return;
  Object.defineProperty(parser, "pause", { value: parseOnWhilePaused, configurable: true, writable: true });
  owners.set(parser, socket);
  const release = (): void => {
    releases.delete(socket);
    if (owners.get(parser) !== socket) return;
    owners.delete(parser);
    delete (parser as Partial<Parser>).pause;
  };
  releases.set(socket, release);
  socket.once("close", release);
}

/** Takes the override off the parser `socket` held: node has given it back to its pool (an upgraded connection). */
export function releaseParser(socket: Socket): void {
  releases.get(socket)?.();
}
