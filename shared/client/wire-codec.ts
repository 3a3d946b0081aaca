/**
 * The content types a client speaks with the server, as the platform's clients offer
 * them (`--content-type`-style choice, JSON by default):
 *  - `json`: `application/json` both ways;
 *  - `protobuf`: the profile's protobuf media type for built-in kinds (request bodies
 *    in the envelope, `Accept: <protobuf>, application/json`); kinds without a protobuf
 *    form (custom resources) and patches go as JSON, and the server may answer JSON;
 *  - `cbor`: `application/cbor` (self-described) both ways, JSON accepted too (the
 *    server serves CBOR only behind its gate).
 * Answers are decoded by the Content-Type they carry, so a server that picks JSON works
 * with every choice. Watch streams too: JSON lines, length-prefixed protobuf frames
 * (each a WatchEvent whose object is decoded by the watched kind), or a CBOR sequence.
 */
import { builtinKinds } from "../api/groups/index.ts";
import { StatusError, type Status } from "../api/status.ts";
import { CborSeqReader, decodeCbor, encodeCbor, protobuf } from "../codec/index.ts";
import type { PlatformProfile } from "../platform/index.ts";
import type { KindDefinition } from "../schema/types.ts";
import type { ResourceRef, WatchEvent } from "./object-client.ts";
import { errorFromResponse, transportError, type RawResponse } from "./transport.ts";

export type WireContentType = "json" | "protobuf" | "cbor";

export const CONTENT_TYPES: readonly WireContentType[] = ["json", "protobuf", "cbor"];

/** The content type of that name, or undefined when there is none. */
export function wireContentType(name: string): WireContentType | undefined {
  return CONTENT_TYPES.find((t) => t === name);
}

const JSON_TYPE = "application/json";
const CBOR_TYPE = "application/cbor";
const CBOR_SEQ_TYPE = "application/cbor-seq";

/** Turns the chunks of a watch response into events. */
export interface WatchDecoder {
  push(chunk: Buffer): WatchEvent[];
  /** Whatever is left when the stream ends. */
  end(): WatchEvent[];
}

const NEWLINE = 0x0a;
const NOT_BLANK = /\S/;

/**
 * JSON lines: newlines are found in the bytes, and each line is decoded from its bytes
 * once (a line split over chunks is joined when its newline arrives), so a chunk of many
 * events costs no re-copy of the text after each line.
 */
class JsonLines implements WatchDecoder {
  /** Bytes of the line begun in earlier chunks. */
  private pending: Buffer[] = [];

  push(chunk: Buffer): WatchEvent[] {
    const out: WatchEvent[] = [];
    let start = 0;
    let nl: number;
    while ((nl = chunk.indexOf(NEWLINE, start)) >= 0) {
      let text: string;
      if (this.pending.length > 0) {
        this.pending.push(chunk.subarray(start, nl));
        text = Buffer.concat(this.pending).toString("utf8");
        this.pending = [];
      } else {
        text = chunk.toString("utf8", start, nl);
      }
      if (NOT_BLANK.test(text)) out.push(JSON.parse(text) as WatchEvent);
      start = nl + 1;
    }
    if (start < chunk.length) this.pending.push(chunk.subarray(start));
    return out;
  }

  end(): WatchEvent[] {
    const rest = Buffer.concat(this.pending).toString("utf8");
    this.pending = [];
    return NOT_BLANK.test(rest) ? [JSON.parse(rest) as WatchEvent] : [];
  }
}

export interface EncodedBody {
  contentType: string;
  data: string | Buffer;
}

type Obj = Record<string, unknown>;

function mediaTypeOf(header: string | undefined): string {
  return (header ?? "").split(";")[0].trim().toLowerCase();
}

export class WireCodec {
  private kinds?: Map<string, KindDefinition>;

  constructor(
    readonly type: WireContentType,
    private readonly profile: PlatformProfile,
  ) {}

  /** The `Accept` header of a non-watch request. */
  accept(): string {
    if (this.type === "protobuf") return `${this.profile.protobufMediaType}, ${JSON_TYPE}`;
    if (this.type === "cbor") return `${CBOR_TYPE}, ${JSON_TYPE}`;
    return JSON_TYPE;
  }

  private resources?: Map<string, KindDefinition>;

  /** Built-in kinds by `apiVersion/kind` in the profile's names. */
  private kindOf(apiVersion: unknown, kind: unknown): KindDefinition | undefined {
    if (!this.kinds) {
      this.kinds = new Map();
      for (const def of builtinKinds(this.profile)) this.kinds.set(`${this.profile.apiVersion(def.group, def.version)}/${def.kind}`, def);
    }
    return typeof apiVersion === "string" && typeof kind === "string" ? this.kinds.get(`${apiVersion}/${kind}`) : undefined;
  }

  /** The built-in kind served at a resource, if any. */
  private kindAt(res: ResourceRef): KindDefinition | undefined {
    if (!this.resources) {
      this.resources = new Map();
      for (const def of builtinKinds(this.profile)) this.resources.set(`${this.profile.group(def.group)}/${def.version}/${def.plural}`, def);
    }
    return this.resources.get(`${res.group}/${res.version}/${res.resource}`);
  }

  /** The decoder of a watch response of `res` with this Content-Type. */
  watchDecoder(res: ResourceRef, contentType: string | undefined): WatchDecoder {
    const media = mediaTypeOf(contentType);
    const def = this.kindAt(res);
    if (media === this.profile.protobufMediaType && def) {
      const frames = new protobuf.FrameReader();
      const decode = (payload: Uint8Array) => protobuf.decodeWatchEvent(def, payload, { profile: this.profile }) as unknown as WatchEvent;
      return { push: (chunk) => frames.push(chunk).map(decode), end: () => [] };
    }
    if (media === CBOR_SEQ_TYPE || media === CBOR_TYPE) {
      const seq = new CborSeqReader();
      return {
        push: (chunk) => seq.push(chunk) as WatchEvent[],
        end: () => {
          seq.finish();
          return [];
        },
      };
    }
    return new JsonLines();
  }

  /** A request body for `obj` in the chosen type (JSON for kinds without a protobuf form). */
  encode(input: object): EncodedBody {
    const obj = input as Obj;
    if (this.type === "cbor") return { contentType: CBOR_TYPE, data: Buffer.from(encodeCbor(obj)) };
    const def = this.type === "protobuf" ? this.kindOf(obj.apiVersion, obj.kind) : undefined;
    if (def) return { contentType: this.profile.protobufMediaType, data: Buffer.from(protobuf.encodeObject(def, obj, this.profile)) };
    return { contentType: JSON_TYPE, data: JSON.stringify(obj) };
  }

  /** The body of an answer in whichever type it came. */
  decode(res: RawResponse): unknown {
    const media = mediaTypeOf(res.contentType);
    if (media === this.profile.protobufMediaType) return this.decodeProtobuf(res.body);
    if (media === CBOR_TYPE) return decodeCbor(res.body);
    return JSON.parse(res.body.toString("utf8"));
  }

  private decodeProtobuf(bytes: Buffer): unknown {
    const env = protobuf.decodeEnvelope(bytes);
    if (env.kind === "Status") return protobuf.decodeStatus(bytes);
    const own = this.kindOf(env.apiVersion, env.kind);
    if (own) return protobuf.decodeObject(own, bytes, { profile: this.profile });
    const item = env.kind.endsWith("List") ? this.kindOf(env.apiVersion, env.kind.slice(0, -"List".length)) : undefined;
    if (item) return protobuf.decodeList(item, bytes, { profile: this.profile });
    throw new Error(`no protobuf form known for ${env.apiVersion}, Kind=${env.kind}`);
  }

  /** The decoded body of a 2xx answer; any other answer throws its Status (decoded from its own type). */
  result(method: string, path: string, res: RawResponse): unknown {
    if (res.status >= 200 && res.status < 300) {
      try {
        return this.decode(res);
      } catch (err) {
        throw transportError(new Error(`${method} ${path}: the answer cannot be decoded: ${(err as Error).message}`));
      }
    }
    throw this.failure(res);
  }

  /** The error of a non-2xx answer: its Status decoded from the answer's own type (protobuf, CBOR or JSON). */
  failure(res: RawResponse): StatusError {
    if (mediaTypeOf(res.contentType) !== JSON_TYPE) {
      try {
        const status = this.decode(res) as Obj;
        if (status.kind === "Status" && typeof status.code === "number") return new StatusError(status as unknown as Status);
      } catch {
        // not a Status in that type: the text fallback below
      }
    }
    return errorFromResponse(res.status, res.body);
  }
}
