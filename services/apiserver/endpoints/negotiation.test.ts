import { describe, expect, it } from "vitest";
import { getProfile } from "../../../shared/platform/index.ts";
import { StatusError } from "../../../shared/api/status.ts";
import {
  acceptedMediaTypes,
  negotiateInput,
  negotiateOutput,
  parseAccept,
  parseContentType,
  patchMediaTypes,
  patchTypeOf,
  responseContentType,
  type NegotiationOptions,
} from "./negotiation.ts";

const plat = getProfile("plat");
const kube = getProfile("kubernetes");
const PB = plat.protobufMediaType;
const META = plat.metaGroup;
const base: NegotiationOptions = { profile: plat, conversion: { table: true, partialObjectMetadata: true } };

function statusOf(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  throw new Error("expected a StatusError");
}

describe("parseAccept", () => {
  it("orders by q, then specificity, then header order", () => {
    const r = parseAccept("text/*;q=0.5, */*;q=0.1, application/json;q=0.5, application/yaml, image/png;q=0");
    expect(r.map((x) => `${x.type}/${x.subtype};${x.q}`)).toEqual(["application/yaml;1", "application/json;0.5", "text/*;0.5", "*/*;0.1"]);
  });

  it("keeps parameters, lowercases names and types, unquotes values", () => {
    const [r] = parseAccept(`Application/JSON; AS=Table; g="${META}"; v=v1`);
    expect(r).toEqual({ type: "application", subtype: "json", params: { as: "Table", g: META, v: "v1" }, q: 1 });
  });

  const dropped: string[] = ["", " , ", "application", "*/json", "a/b/c", "application/json;q=0", "application/json;q=abc", "/json"];
  it.each(dropped)("drops %j", (h) => {
    expect(parseAccept(h)).toEqual([]);
  });

  it("reads * as */*", () => {
    expect(parseAccept("*")).toEqual([{ type: "*", subtype: "*", params: {}, q: 1 }]);
  });

  it("keeps commas inside quotes", () => {
    expect(parseAccept('application/json;x="a,b", application/yaml').map((r) => r.params.x ?? r.subtype)).toEqual(["a,b", "yaml"]);
  });
});

describe("negotiateOutput", () => {
  const cases: Array<[string, string | undefined, Partial<NegotiationOptions>, string, Record<string, unknown>?]> = [
    ["absent", undefined, {}, "application/json"],
    ["empty", "", {}, "application/json"],
    ["wildcard", "*/*", {}, "application/json"],
    ["application wildcard", "application/*", {}, "application/json"],
    ["yaml", "application/yaml", {}, "application/yaml"],
    ["protobuf", PB, {}, PB],
    ["protobuf fallback list", `${PB}, application/json`, {}, PB],
    ["protobuf not offered falls back", `${PB}, application/json`, { protobuf: false }, "application/json"],
    ["q order", "application/json;q=0.5, application/yaml", {}, "application/yaml"],
    ["specific before wildcard at equal q", "*/*, application/yaml", {}, "application/yaml"],
    ["server preference for a wildcard", "application/*;q=0.9, text/plain", {}, "application/json"],
    ["unknown types skipped", "text/html, application/xhtml+xml, application/yaml;q=0.9, */*;q=0.8", {}, "application/yaml"],
    ["cbor when enabled", "application/cbor", { cbor: true }, "application/cbor"],
    ["cbor not enabled falls back", "application/cbor, application/json;q=0.5", {}, "application/json"],
    ["charset utf-8", "application/json;charset=utf-8", {}, "application/json"],
    ["pretty", "application/json;pretty=1", {}, "application/json", { pretty: true }],
    ["unrecognized parameter", "application/json;foo=bar", {}, "application/json", { unrecognized: ["foo"] }],
    ["stream=watch on a plain endpoint", "application/json;stream=watch", {}, "application/json", { stream: true }],
    ["stream on yaml skipped", "application/yaml;stream=watch, application/json", {}, "application/json", { stream: false }],
    ["other stream skipped", "application/json;stream=other, application/yaml", {}, "application/yaml"],
    ["table", `application/json;as=Table;g=${META};v=v1`, {}, "application/json", { target: { kind: "Table", group: META, version: "v1" } }],
    ["table v1beta1 yaml", `application/yaml;as=Table;v=v1beta1;g=${META}`, {}, "application/yaml", { target: { kind: "Table", group: META, version: "v1beta1" } }],
    ["table on protobuf skipped", `${PB};as=Table;g=${META};v=v1, application/json`, {}, "application/json", { target: undefined }],
    ["table without support falls back", `application/json;as=Table;g=${META};v=v1, application/json`, { conversion: {} }, "application/json", { target: undefined }],
    ["table wrong group falls back", "application/json;as=Table;g=other.example;v=v1, application/yaml", {}, "application/yaml"],
    ["table wrong version falls back", `application/json;as=Table;g=${META};v=v2, application/yaml`, {}, "application/yaml"],
    ["unknown conversion falls back", `application/json;as=Pod;g=${META};v=v1, application/yaml`, {}, "application/yaml"],
    ["g and v without as falls back", `application/json;g=${META};v=v1, application/yaml`, {}, "application/yaml"],
    [
      "partial object metadata list",
      `application/json;as=PartialObjectMetadataList;g=${META};v=v1,application/json`,
      {},
      "application/json",
      { target: { kind: "PartialObjectMetadataList", group: META, version: "v1" } },
    ],
    ["partial object metadata on protobuf", `${PB};as=PartialObjectMetadata;g=${META};v=v1`, {}, PB, { target: { kind: "PartialObjectMetadata", group: META, version: "v1" } }],
    ["watch: yaml not offered", "application/yaml, application/json", { watch: true }, "application/json"],
    ["watch: protobuf stream", `${PB};stream=watch`, { watch: true }, PB, { stream: true }],
  ];
  it.each(cases)("%s", (_n, header, extra, mediaType, more) => {
    const n = negotiateOutput(header, { ...base, ...extra });
    expect(n.mediaType).toBe(mediaType);
    if (more) {
      for (const [k, v] of Object.entries(more)) expect(n[k as keyof typeof n], k).toEqual(v);
    }
  });

  it("uses the profile's meta group and protobuf type", () => {
    const opts: NegotiationOptions = { profile: kube, conversion: { table: true } };
    const n = negotiateOutput(`application/json;as=Table;g=${kube.metaGroup};v=v1`, opts);
    expect(n.target?.group).toBe(kube.metaGroup);
    expect(negotiateOutput(kube.protobufMediaType, opts).mediaType).toBe(kube.protobufMediaType);
    expect(() => negotiateOutput(`application/json;as=Table;g=${META};v=v1`, opts)).toThrow(StatusError);
  });

  const refused: Array<[string, string, Partial<NegotiationOptions>, string]> = [
    ["text/plain", "text/plain", {}, `only the following media types are accepted: application/json, application/yaml, ${PB}`],
    ["q=0 only", "application/json;q=0", {}, `only the following media types are accepted: application/json, application/yaml, ${PB}`],
    ["cbor listed when enabled", "text/html", { cbor: true }, `only the following media types are accepted: application/json, application/yaml, ${PB}, application/cbor`],
    ["without protobuf", "text/html", { protobuf: false }, "only the following media types are accepted: application/json, application/yaml"],
    ["watch yaml", "application/yaml", { watch: true }, `only the following media types are accepted: application/json;stream=watch, ${PB};stream=watch`],
    [
      "watch cbor",
      "text/plain",
      { watch: true, cbor: true },
      `only the following media types are accepted: application/json;stream=watch, ${PB};stream=watch, application/cbor-seq`,
    ],
    ["table only", `application/json;as=Table;g=${META};v=v1`, { conversion: {} }, `only the following media types are accepted: application/json, application/yaml, ${PB}`],
  ];
  it.each(refused)("406 for %s", (_n, header, extra, message) => {
    const e = statusOf(() => negotiateOutput(header, { ...base, ...extra }));
    expect(e.code).toBe(406);
    expect(e.reason).toBe("NotAcceptable");
    expect(e.message).toBe(message);
  });

  it("acceptedMediaTypes", () => {
    expect(acceptedMediaTypes({ profile: plat })).toEqual(["application/json", "application/yaml", PB]);
  });
});

describe("responseContentType", () => {
  it("adds the stream form only for watches of non-JSON types", () => {
    expect(responseContentType({ encoding: "json", mediaType: "application/json" }, true)).toBe("application/json");
    expect(responseContentType({ encoding: "protobuf", mediaType: PB }, true)).toBe(`${PB};stream=watch`);
    expect(responseContentType({ encoding: "cbor", mediaType: "application/cbor" }, true)).toBe("application/cbor-seq");
    expect(responseContentType({ encoding: "protobuf", mediaType: PB })).toBe(PB);
  });
});

describe("request bodies", () => {
  it("parseContentType", () => {
    expect(parseContentType("application/json; charset=UTF-8")).toEqual({ mediaType: "application/json", params: { charset: "UTF-8" }, charset: "utf-8" });
    expect(parseContentType("Application/YAML")).toEqual({ mediaType: "application/yaml", params: {} });
    expect(parseContentType("json")).toBeUndefined();
    expect(parseContentType("")).toBeUndefined();
    expect(parseContentType("application/json garbage")).toBeUndefined();
  });

  const ok: Array<[string | undefined, Partial<NegotiationOptions>, string, string?]> = [
    [undefined, {}, "json"],
    ["", {}, "json"],
    ["application/json", {}, "json"],
    ["application/json;charset=utf-8", {}, "json", "utf-8"],
    ["application/yaml", {}, "yaml"],
    [PB, {}, "protobuf"],
    ["application/cbor", { cbor: true }, "cbor"],
  ];
  it.each(ok)("reads %j", (ct, extra, encoding, charset) => {
    const r = negotiateInput(ct, { ...base, ...extra });
    expect(r.encoding).toBe(encoding);
    expect(r.charset).toBe(charset);
  });

  const bad: Array<[string, Partial<NegotiationOptions>, string]> = [
    ["text/plain", {}, `application/json, application/yaml, ${PB}`],
    ["application/cbor", {}, `application/json, application/yaml, ${PB}`],
    [PB, { protobuf: false }, "application/json, application/yaml"],
    ["not a type", {}, `application/json, application/yaml, ${PB}`],
  ];
  it.each(bad)("415 for %j", (ct, extra, list) => {
    const e = statusOf(() => negotiateInput(ct, { ...base, ...extra }));
    expect(e.code).toBe(415);
    expect(e.reason).toBe("UnsupportedMediaType");
    expect(e.message).toBe(`the body of the request was in an unknown format - accepted media types include: ${list}`);
  });
});

describe("patch types", () => {
  const ok: Array<[string, object, string, string]> = [
    ["application/json-patch+json", {}, "json", "json"],
    ["application/merge-patch+json", {}, "merge", "json"],
    ["application/merge-patch+json; charset=utf-8", {}, "merge", "json"],
    ["application/strategic-merge-patch+json", {}, "strategic", "json"],
    ["application/apply-patch+yaml", {}, "apply", "yaml"],
    ["application/apply-patch+cbor", { cbor: true }, "apply", "cbor"],
  ];
  it.each(ok)("%s", (ct, opts, type, encoding) => {
    expect(patchTypeOf(ct, opts)).toMatchObject({ type, encoding });
  });

  const bad: Array<[string | undefined, object, string]> = [
    [
      "application/json",
      {},
      "application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml",
    ],
    [undefined, {}, "application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml"],
    ["application/strategic-merge-patch+json", { strategic: false }, "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"],
    [
      "application/apply-patch+cbor",
      {},
      "application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml",
    ],
  ];
  it.each(bad)("415 for %j", (ct, opts, list) => {
    const e = statusOf(() => patchTypeOf(ct, opts));
    expect(e.code).toBe(415);
    expect(e.message).toBe(`the body of the request was in an unknown format - accepted media types include: ${list}`);
  });

  it("lists CBOR apply when enabled", () => {
    expect(patchMediaTypes({ cbor: true, strategic: false })).toEqual([
      "application/json-patch+json",
      "application/merge-patch+json",
      "application/apply-patch+yaml",
      "application/apply-patch+cbor",
    ]);
  });
});

describe("negotiateOutput memos", () => {
  it("answers a repeated Accept header per endpoint's options", () => {
    const header = `application/json;as=Table;g=${META};v=v1, ${PB}, application/json`;
    expect(negotiateOutput(header, base)).toMatchObject({ encoding: "json", target: { kind: "Table" } });
    expect(negotiateOutput(header, { profile: plat })).toMatchObject({ encoding: "protobuf", mediaType: PB });
    expect(negotiateOutput(header, { profile: plat, protobuf: false }).encoding).toBe("json");
    expect(negotiateOutput(header, { profile: plat, protobuf: false }).target).toBeUndefined();
    // The header names this profile's protobuf type, which the other profile does not offer.
    expect(negotiateOutput(header, { profile: kube }).mediaType).toBe("application/json");
    expect(negotiateOutput(`${kube.protobufMediaType}, application/json`, { profile: kube }).mediaType).toBe(kube.protobufMediaType);
    expect(negotiateOutput(`${kube.protobufMediaType}, application/json`, { profile: plat }).mediaType).toBe("application/json");
    expect(negotiateOutput(header, { profile: plat, watch: true })).toMatchObject({ encoding: "protobuf" });
  });

  it("keeps answering right past the memo's capacity", () => {
    for (let i = 0; i < 600; i++) {
      const q = (i % 9) / 10 + 0.1;
      const n = negotiateOutput(`application/yaml;q=${q.toFixed(1)}, application/json;x=${i}`, base);
      expect(n.encoding).toBe("json");
      expect(n.unrecognized).toEqual(["x"]);
    }
    expect(statusOf(() => negotiateOutput("text/html", base)).code).toBe(406);
    expect(statusOf(() => negotiateOutput("text/html", base)).code).toBe(406);
  });
});
