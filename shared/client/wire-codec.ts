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
 * with every choice. Watches are read as JSON lines whatever the choice.
 */
import { builtinKinds } from "../api/groups/index.ts";
import { StatusError, type Status } from "../api/status.ts";
import { decodeCbor, encodeCbor, protobuf } from "../codec/index.ts";
import type { PlatformProfile } from "../platform/index.ts";
import type { KindDefinition } from "../schema/types.ts";
import { errorFromResponse, transportError, type RawResponse } from "./transport.ts";

export type WireContentType = "json" | "protobuf" | "cbor";

export const CONTENT_TYPES: readonly WireContentType[] = ["json", "protobuf", "cbor"];

const JSON_TYPE = "application/json";
const CBOR_TYPE = "application/cbor";

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

  /** Built-in kinds by `apiVersion/kind` in the profile's names. */
  private kindOf(apiVersion: unknown, kind: unknown): KindDefinition | undefined {
    if (!this.kinds) {
      this.kinds = new Map();
      for (const def of builtinKinds(this.profile)) this.kinds.set(`${this.profile.apiVersion(def.group, def.version)}/${def.kind}`, def);
    }
    return typeof apiVersion === "string" && typeof kind === "string" ? this.kinds.get(`${apiVersion}/${kind}`) : undefined;
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
    if (mediaTypeOf(res.contentType) !== JSON_TYPE) {
      try {
        const status = this.decode(res) as Obj;
        if (status.kind === "Status" && typeof status.code === "number") throw new StatusError(status as unknown as Status);
      } catch (err) {
        if (err instanceof StatusError) throw err;
      }
    }
    throw errorFromResponse(res.status, res.body);
  }
}
