// Public surface of the peer transport.
export type { RemovalNotice, Transport } from "./types.ts";
export { encodeMessage, decodeMessage, CodecError } from "./codec.ts";
export { MemoryNetwork, MemoryTransport } from "./memory.ts";
export { StreamTransport, type StreamTransportOptions } from "./stream-transport.ts";
export type { PeerTls } from "./peer-socket.ts";
