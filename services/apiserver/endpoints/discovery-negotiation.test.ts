import { describe, expect, it } from "vitest";
import { getProfile } from "../../../shared/platform/index.ts";
import { aggregatedContentType, chooseDiscovery, type AggregatedChoice } from "./discovery-negotiation.ts";

const plat = getProfile("plat");
const kube = getProfile("kubernetes");
const agg = (version: string, type = "application/json", profile = plat) => `${type};g=${profile.group("apidiscovery")};v=${version};as=APIGroupDiscoveryList`;

describe("chooseDiscovery", () => {
  it("serves the plain document without Accept, for plain types and wildcards", () => {
    for (const accept of [undefined, null, "", "application/json", "*/*", "application/yaml", plat.protobufMediaType, "application/json, */*"]) {
      expect(chooseDiscovery(accept, plat), String(accept)).toEqual({ aggregated: false });
    }
  });

  it("picks the aggregated v2 and v2beta1 documents in JSON, YAML and protobuf", () => {
    expect(chooseDiscovery(agg("v2"), plat)).toEqual({ aggregated: true, version: "v2", encoding: "json", mediaType: "application/json", pretty: false });
    expect(chooseDiscovery(agg("v2beta1"), plat)).toMatchObject({ aggregated: true, version: "v2beta1", encoding: "json" });
    expect(chooseDiscovery(agg("v2", "application/yaml"), plat)).toMatchObject({ version: "v2", encoding: "yaml", mediaType: "application/yaml" });
    expect(chooseDiscovery(agg("v2", plat.protobufMediaType), plat)).toMatchObject({ version: "v2", encoding: "protobuf", mediaType: plat.protobufMediaType });
    expect(chooseDiscovery(`${agg("v2")};pretty=1`, plat)).toMatchObject({ pretty: true });
  });

  it("takes the first acceptable clause of a client's list (aggregated first, plain JSON as fallback)", () => {
    expect(chooseDiscovery(`${agg("v2")},${agg("v2beta1")},application/json`, plat)).toMatchObject({ aggregated: true, version: "v2" });
    expect(chooseDiscovery(`application/json;q=0.5,${agg("v2beta1")};q=0.9,${agg("v2")};q=0.8`, plat)).toMatchObject({ aggregated: true, version: "v2beta1" });
    expect(chooseDiscovery(`${agg("v2")};q=0.4,application/json;q=0.9`, plat)).toEqual({ aggregated: false });
  });

  it("skips clauses asking for other versions, kinds, groups, streams or charsets", () => {
    for (const accept of [
      agg("v1"),
      agg("v3"),
      `application/json;g=${plat.group("apidiscovery")};v=v2;as=APIGroupList`,
      agg("v2", "application/json", kube),
      `application/json;g=${plat.metaGroup};v=v1;as=Table`,
      `${agg("v2")};stream=watch`,
      `${agg("v2")};charset=latin1`,
      agg("v2", "text/html"),
    ]) {
      expect(chooseDiscovery(`${accept}, application/json;q=0.5`, plat), accept).toEqual({ aggregated: false });
    }
    expect(chooseDiscovery(`${agg("v3")},${agg("v2beta1")}`, plat)).toMatchObject({ aggregated: true, version: "v2beta1" });
    expect(chooseDiscovery(`${agg("v2")};charset=UTF-8;profile=nopeer`, plat)).toMatchObject({ aggregated: true, version: "v2" });
  });

  it("names the same parameters in the response Content-Type", () => {
    const choice = chooseDiscovery(agg("v2", "application/json", kube), kube) as AggregatedChoice;
    expect(aggregatedContentType(choice, kube)).toBe(agg("v2", "application/json", kube));
    const pb = chooseDiscovery(agg("v2beta1", plat.protobufMediaType), plat) as AggregatedChoice;
    expect(aggregatedContentType(pb, plat)).toBe(agg("v2beta1", plat.protobufMediaType));
  });
});
