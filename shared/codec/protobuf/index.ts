/** The protobuf media type: envelope, schema-driven messages, lists, Status, watch events and framing. */
export { PROTOBUF_MAGIC, decodeEnvelope, encodeEnvelope, envelopeRaw, hasProtobufMagic, type Envelope, type EnvelopeInput } from "./envelope.ts";
export { ProtobufError, type ProtobufErrorCode } from "./wire.ts";
export { decodeMessage, encodeMessageReference, formatTime, parseTime, DEFAULT_MAX_MESSAGE_DEPTH, type DecodeMessageOptions } from "./message.ts";
export { encodeMessage } from "./compiled.ts";
export { kindLayout, listLayout, messageLayout, type MessageLayout } from "./layout.ts";
export {
  decodeList,
  decodeObject,
  decodeStatus,
  decodeWatchEvent,
  encodeList,
  encodeObject,
  encodeStatus,
  encodeWatchEvent,
  type DecodeObjectOptions,
  type WatchEvent,
} from "./object.ts";
export { DEFAULT_MAX_FRAME, FrameReader, decodeFrames, encodeFrame } from "./framing.ts";
export { normalizeForProtobuf, normalizeMessage } from "./normalize.ts";
