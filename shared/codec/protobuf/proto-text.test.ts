import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import protobuf from "protobufjs";
import { describe, expect, it } from "vitest";
import { kinds as coreKinds } from "../../api/groups/core-v1.ts";
import { getProfile } from "../../platform/index.ts";
import { PROTO_ROOT } from "../../proto/index.ts";
import { API_PROTO_DIR, expectedProtoFiles } from "./generate-proto.ts";
import { decodeEnvelope, encodeObject } from "./index.ts";
import { protoPackageOf } from "./proto-text.ts";

const expected = expectedProtoFiles();

function loadRoot(): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (target.startsWith("/") ? target : join(PROTO_ROOT, target));
  root.loadSync([...expected.keys()].map((f) => join(PROTO_ROOT, f)), { keepCase: true });
  root.resolveAll();
  return root;
}

describe("generated .proto files", () => {
  it("are committed as the generator writes them (run generate-proto.ts after a schema change)", () => {
    const committed = readdirSync(API_PROTO_DIR).filter((f) => f.endsWith(".proto")).sort();
    expect(committed).toEqual([...expected.keys()].map((k) => k.replace(/^api\//, "")).sort());
    for (const [rel, text] of expected) expect(readFileSync(join(PROTO_ROOT, rel), "utf8"), rel).toBe(text);
  });

  it("parse and resolve with a protobuf library", () => {
    const root = loadRoot();
    const pkg = protoPackageOf({ group: "core", version: "v1" }, getProfile());
    expect(root.lookupType(`${pkg}.Pod`).fields.spec.id).toBe(2);
    expect(root.lookupType(`${pkg}.Volume`).fields.volumeSource.id).toBe(2);
  });

  it("decode the codec's bytes with the published messages", () => {
    const root = loadRoot();
    const profile = getProfile();
    const podDef = coreKinds.find((k) => k.kind === "Pod");
    if (!podDef) throw new Error("no Pod");
    const pod = {
      metadata: { name: "p", labels: { app: "web" }, creationTimestamp: "2024-05-01T10:00:00Z" },
      spec: {
        containers: [{ name: "c", image: "nginx", ports: [{ containerPort: 80 }], resources: { limits: { cpu: "500m" } }, readinessProbe: { httpGet: { path: "/", port: "http" } } }],
        volumes: [{ name: "v", configMap: { name: "cm" } }],
      },
    };
    const raw = decodeEnvelope(encodeObject(podDef, pod, profile)).raw;
    const type = root.lookupType(`${protoPackageOf({ group: "core", version: "v1" }, profile)}.Pod`);
    const msg = type.toObject(type.decode(raw), { longs: Number }) as {
      metadata: { name: string; labels: Record<string, string>; creationTimestamp: { seconds: number } };
      spec: { containers: Array<{ image: string; ports: Array<{ containerPort: number }>; resources: { limits: Record<string, { string: string }> }; readinessProbe: { handler: { httpGet: { port: { type: number; strVal: string } } } } }>; volumes: Array<{ volumeSource: { configMap: { localObjectReference: { name: string } } } }> };
    };
    expect(msg.metadata.name).toBe("p");
    expect(msg.metadata.labels).toEqual({ app: "web" });
    expect(msg.metadata.creationTimestamp.seconds).toBe(Date.parse("2024-05-01T10:00:00Z") / 1000);
    expect(msg.spec.containers[0].image).toBe("nginx");
    expect(msg.spec.containers[0].ports[0].containerPort).toBe(80);
    expect(msg.spec.containers[0].resources.limits.cpu.string).toBe("500m");
    expect(msg.spec.containers[0].readinessProbe.handler.httpGet.port).toMatchObject({ type: 1, strVal: "http" });
    expect(msg.spec.volumes[0].volumeSource.configMap.localObjectReference.name).toBe("cm");
  });
});
