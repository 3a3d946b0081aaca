/**
 * CRD conversion webhooks over HTTPS: a real conversion webhook started by the test
 * (v1 `spec.hostPort: "h:p"` ⇄ v2 `spec.host` + `spec.port`), the CRD storing v1.
 * Create, get, update, list and watch in the non-storage version; the ConversionReview
 * exchange (v1 and v1beta1 reviews, uid, desiredAPIVersion, `?timeout=30s`); answers that
 * break the rules and a webhook that is down give a 500 Status with the platform's
 * messages and store nothing; a service clientConfig resolved through its EndpointSlice;
 * kubectl 1.34 reads the non-storage version.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensurePki, writeAdminKubeconfig } from "../../services/apiserver/server/certs.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { layerClients, runClient } from "../support/clients.ts";
import { startConversionWebhookServer, type ConversionWebhookServer, type Obj } from "../support/conversion-webhook-server.ts";
import { CRD_GROUP, crdPath, waitServed } from "../support/crd-fixtures.ts";

let api: TestApiserver;
let wh: ConversionWebhookServer;
const G = CRD_GROUP;
const NS = "default";

/** v1 keeps `hostPort: "host:port"`; v2 splits it into `host` and `port`. */
function convertGear(obj: Obj, desired: string): Obj {
  const spec = (obj.spec ?? {}) as Obj;
  if (desired === `${G}/v2`) {
    const [host, port] = String(spec.hostPort ?? ":").split(":");
    return { ...obj, apiVersion: desired, spec: { host, port: Number(port) } };
  }
  return { ...obj, apiVersion: desired, spec: { hostPort: `${String(spec.host)}:${String(spec.port)}` } };
}

function gearCrd(plural: string, kind: string, webhook: Obj): Obj {
  const schema = (spec: Obj) => ({ openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties: spec } } } });
  return {
    apiVersion: api.profile.apiVersion("apiextensions", "v1"),
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${G}` },
    spec: {
      group: G,
      scope: "Namespaced",
      names: { plural, singular: kind.toLowerCase(), kind },
      versions: [
        { name: "v1", served: true, storage: true, schema: schema({ hostPort: { type: "string" } }) },
        { name: "v2", served: true, storage: false, schema: schema({ host: { type: "string" }, port: { type: "integer", minimum: 1 } }) },
      ],
      conversion: { strategy: "Webhook", webhook },
    },
  };
}

async function createCrd(plural: string, kind: string, webhook: Obj): Promise<void> {
  const res = await api.admin.post(crdPath(api.profile), gearCrd(plural, kind, webhook));
  expect(res.status, res.text).toBe(201);
  await waitServed(api.admin, `/apis/${G}/v2/${plural}`, 10_000);
}

const path = (version: string, plural = "gears", name = "") => `/apis/${G}/${version}/namespaces/${NS}/${plural}${name ? `/${name}` : ""}`;
const v1Gear = (name: string, hostPort: string, kind = "Gear") => ({ apiVersion: `${G}/v1`, kind, metadata: { name }, spec: { hostPort } });
const v2Gear = (name: string, host: string, port: number, kind = "Gear") => ({ apiVersion: `${G}/v2`, kind, metadata: { name }, spec: { host, port } });

beforeAll(async () => {
  api = await startTestApiserver({ profileId: "kubernetes" });
  wh = await startConversionWebhookServer(convertGear, ["conv.default.svc"]);
  await createCrd("gears", "Gear", { conversionReviewVersions: ["v1", "v1beta1"], clientConfig: { url: `${wh.url}/convert`, caBundle: wh.caBundle } });
});
afterAll(async () => {
  await wh?.close();
  await api?.close();
});

describe("conversion webhook: every verb in the non-storage version", () => {
  it("creates in v2, stores v1 and reads both versions, with the platform's ConversionReview", async () => {
    wh.reviews.length = 0;
    const created = await api.admin.post(path("v2"), v2Gear("a", "db", 5432));
    expect(created.status, created.text).toBe(201);
    expect(created.json()).toMatchObject({ apiVersion: `${G}/v2`, kind: "Gear", spec: { host: "db", port: 5432 } });
    const toStorage = wh.reviews.find((r) => r.review.request.desiredAPIVersion === `${G}/v1`);
    expect(toStorage?.path).toBe("/convert");
    expect(toStorage?.query).toBe("?timeout=30s");
    expect(toStorage?.review).toMatchObject({ apiVersion: `${api.profile.group("apiextensions")}/v1`, kind: "ConversionReview", request: { objects: [{ apiVersion: `${G}/v2`, kind: "Gear", spec: { host: "db", port: 5432 } }] } });
    expect(toStorage?.review.request.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect((await api.admin.get(path("v1", "gears", "a"))).json()).toMatchObject({ apiVersion: `${G}/v1`, spec: { hostPort: "db:5432" } });
    const v2 = await api.admin.get(path("v2", "gears", "a"));
    expect(v2.status, v2.text).toBe(200);
    expect(v2.json()).toMatchObject({ apiVersion: `${G}/v2`, metadata: { name: "a", namespace: NS }, spec: { host: "db", port: 5432 } });
  });

  it("updates in v2 through the webhook both ways; a v2 validation error names v2's fields", async () => {
    const current = (await api.admin.get(path("v2", "gears", "a"))).json<Obj & { spec: Obj }>();
    const updated = await api.admin.put(path("v2", "gears", "a"), { ...current, spec: { host: "db", port: 6543 } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json()).toMatchObject({ apiVersion: `${G}/v2`, spec: { host: "db", port: 6543 } });
    expect((await api.admin.get(path("v1", "gears", "a"))).json()).toMatchObject({ spec: { hostPort: "db:6543" } });
    const bad = await api.admin.post(path("v2"), v2Gear("bad", "db", 0));
    expect(bad.status).toBe(422);
    expect(bad.json<{ message: string }>().message).toContain("spec.port");
  });

  it("patches and applies server-side in v2; managedFields and dry run work through the webhook", async () => {
    const merged = await api.admin.patch(path("v2", "gears", "a"), { spec: { port: 7000 } }, "application/merge-patch+json");
    expect(merged.status, merged.text).toBe(200);
    expect(merged.json()).toMatchObject({ apiVersion: `${G}/v2`, spec: { host: "db", port: 7000 } });
    expect((await api.admin.get(path("v1", "gears", "a"))).json()).toMatchObject({ spec: { hostPort: "db:7000" } });
    const applied = await api.admin.patch(`${path("v2", "gears", "applied")}?fieldManager=tester`, v2Gear("applied", "web", 80), "application/apply-patch+yaml");
    expect(applied.status, applied.text).toBe(201);
    const body = applied.json<{ apiVersion: string; spec: Obj; metadata: { managedFields: Array<{ manager: string; apiVersion: string }> } }>();
    expect(body.spec).toEqual({ host: "web", port: 80 });
    expect(body.metadata.managedFields).toEqual([expect.objectContaining({ manager: "tester", apiVersion: `${G}/v2` })]);
    expect((await api.admin.get(path("v1", "gears", "applied"))).json()).toMatchObject({ spec: { hostPort: "web:80" } });
    const dry = await api.admin.post(`${path("v2")}?dryRun=All`, v2Gear("dry", "x", 1));
    expect(dry.status, dry.text).toBe(201);
    expect(dry.json()).toMatchObject({ apiVersion: `${G}/v2`, spec: { host: "x", port: 1 } });
    expect((await api.admin.get(path("v1", "gears", "dry"))).status).toBe(404);
    expect((await api.admin.delete(path("v2", "gears", "applied"))).status).toBe(200);
    const metrics = (await api.admin.get("/metrics")).text;
    expect(metrics).toMatch(new RegExp(`apiserver_crd_webhook_conversion_duration_seconds_count\\{crd_name="gears\\.${G.replaceAll(".", "\\.")}",from_version="${G.replaceAll(".", "\\.")}/v2",to_version="${G.replaceAll(".", "\\.")}/v1",succeeded="true"\\} [1-9]`));
  });

  it("lists and watches in v2 while the store holds v1", async () => {
    expect((await api.admin.post(path("v1"), v1Gear("b", "cache:6379"))).status).toBe(201);
    const list = await api.admin.get(path("v2"));
    expect(list.status, list.text).toBe(200);
    const body = list.json<{ apiVersion: string; items: Obj[]; metadata: { resourceVersion: string } }>();
    expect(body.items.map((i) => [i.apiVersion, (i.spec as Obj).host, (i.spec as Obj).port])).toEqual([
      [`${G}/v2`, "db", 7000],
      [`${G}/v2`, "cache", 6379],
    ]);
    const w = api.admin.watch(`${path("v2")}?watch=true&resourceVersion=${body.metadata.resourceVersion}`);
    try {
      expect((await api.admin.post(path("v1"), v1Gear("c", "queue:5672"))).status).toBe(201);
      const [ev] = await w.waitFor(1, 5000);
      expect(ev).toMatchObject({ type: "ADDED", object: { apiVersion: `${G}/v2`, kind: "Gear", metadata: { name: "c" }, spec: { host: "queue", port: 5672 } } });
    } finally {
      w.stop();
    }
    expect((await api.admin.delete(path("v2", "gears", "c"))).status).toBe(200);
    expect((await api.admin.get(path("v1", "gears", "c"))).status).toBe(404);
  });
});

describe("conversion webhook: answers that break the rules", () => {
  const apiext = () => api.profile.group("apiextensions");
  type Review = Parameters<Parameters<ConversionWebhookServer["answer"]>[0] & object>[0];
  const edit = (f: (body: { apiVersion: string; response: { uid: string; convertedObjects: Obj[]; result: Obj } }) => void) => (review: Review) => {
    const answer = wh.converted(review) as { body: { apiVersion: string; response: { uid: string; convertedObjects: Obj[]; result: Obj } } };
    f(answer.body);
    return answer;
  };
  const cases: Array<{ name: string; answer: (review: Review) => ReturnType<ConversionWebhookServer["converted"]> | { raw: string }; message: string | RegExp }> = [
    { name: "a Failure result", answer: edit((b) => (b.response.result = { status: "Failure", message: "cannot convert gears today" })), message: `conversion webhook for ${G}/v1, Kind=Gear failed: cannot convert gears today` },
    { name: "a Failure without a message", answer: edit((b) => (b.response.result = { status: "Failure" })), message: `conversion webhook for ${G}/v1, Kind=Gear failed: response.result.status was 'Failure', not 'Success'` },
    { name: "another uid", answer: edit((b) => (b.response.uid = "not-the-uid")), message: /^conversion webhook for stable\.example\.com\/v1, Kind=Gear failed: expected response\.uid="[0-9a-f-]{36}", got "not-the-uid"$/ },
    { name: "a review of another version", answer: edit((b) => (b.apiVersion = `${apiext()}/v1beta1`)), message: `conversion webhook for ${G}/v1, Kind=Gear failed: expected webhook response of APIEXT/v1, Kind=ConversionReview, got APIEXT/v1beta1, Kind=ConversionReview` },
    { name: "no object", answer: edit((b) => (b.response.convertedObjects = [])), message: `conversion for ${G}/v1, Kind=Gear returned 0 objects, expected 1` },
    { name: "another name", answer: edit((b) => ((b.response.convertedObjects[0].metadata as Obj).name = "other")), message: `conversion for ${G}/v1, Kind=Gear returned invalid converted object at index 1: must have the same name: a != other` },
    { name: "another uid in metadata", answer: edit((b) => ((b.response.convertedObjects[0].metadata as Obj).uid = "x")), message: /^conversion for stable\.example\.com\/v1, Kind=Gear returned invalid converted object at index 1: must have the same UID: [0-9a-f-]{36} != x$/ },
    { name: "the source version", answer: edit((b) => (b.response.convertedObjects[0].apiVersion = `${G}/v1`)), message: `conversion for ${G}/v1, Kind=Gear returned invalid converted object at index 1: invalid groupVersion (expected ${G}/v2, received ${G}/v1)` },
    { name: "an invalid label", answer: edit((b) => ((b.response.convertedObjects[0].metadata as Obj).labels = { "bad key!": "v" })), message: /^conversion for stable\.example\.com\/v1, Kind=Gear returned invalid metadata in object at index 1: metadata\.labels: Invalid value: "bad key!"/ },
    { name: "a body that is not JSON", answer: () => ({ raw: "<html>" }), message: /^conversion webhook for stable\.example\.com\/v1, Kind=Gear failed: Post "https:\/\/127\.0\.0\.1:\d+\/convert\?timeout=30s": / },
  ];

  for (const c of cases) {
    it(`${c.name}: GET in v2 is a 500 Status with the platform's message`, async () => {
      wh.answer(c.answer);
      try {
        const res = await api.admin.get(path("v2", "gears", "a"));
        expect(res.status, res.text).toBe(500);
        const status = res.json<{ kind: string; status: string; message: string; reason?: string }>();
        expect(status).toMatchObject({ kind: "Status", status: "Failure" });
        expect(status.reason ?? "").toBe("");
        if (typeof c.message === "string") expect(status.message).toBe(c.message.replaceAll("APIEXT", apiext()));
        else expect(status.message).toMatch(c.message);
      } finally {
        wh.answer();
      }
    });
  }

  it("a failing webhook fails a write in v2 and stores nothing; v1 is served meanwhile", async () => {
    wh.answer(edit((b) => (b.response.result = { status: "Failure", message: "no" })));
    try {
      const res = await api.admin.post(path("v2"), v2Gear("never", "x", 1));
      expect(res.status).toBe(500);
      expect(res.json<{ message: string }>().message).toBe(`conversion webhook for ${G}/v2, Kind=Gear failed: no`);
      expect((await api.admin.get(path("v1", "gears", "a"))).status).toBe(200);
    } finally {
      wh.answer();
    }
    expect((await api.admin.get(path("v1", "gears", "never"))).status).toBe(404);
  });

  it("a watch in v2 whose event cannot be converted ends with an ERROR event carrying the 500 Status", async () => {
    const rv = (await api.admin.get(path("v1"))).json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    const w = api.admin.watch(`${path("v2")}?watch=true&resourceVersion=${rv}`);
    try {
      wh.answer(edit((b) => (b.response.result = { status: "Failure", message: "watch says no" })));
      expect((await api.admin.post(path("v1"), v1Gear("watched-bad", "h:9"))).status).toBe(201);
      const [ev] = await w.waitFor(1, 5000);
      expect(ev).toMatchObject({ type: "ERROR", object: { kind: "Status", code: 500, message: `conversion webhook for ${G}/v1, Kind=Gear failed: watch says no` } });
    } finally {
      wh.answer();
      w.stop();
    }
    expect((await api.admin.delete(path("v1", "gears", "watched-bad"))).status).toBe(200);
  });

  it("keeps the labels and annotations the webhook changed, and restores the rest of the metadata", async () => {
    wh.answer(
      edit((b) => {
        const m = b.response.convertedObjects[0].metadata as Obj;
        m.labels = { converted: "yes" };
        m.generation = 99;
      }),
    );
    try {
      const res = await api.admin.get(path("v2", "gears", "b"));
      expect(res.status, res.text).toBe(200);
      expect(res.json()).toMatchObject({ metadata: { name: "b", labels: { converted: "yes" }, generation: 1 } });
    } finally {
      wh.answer();
    }
  });
});

describe("conversion webhook: down, v1beta1 reviews, service clientConfig", () => {
  it("a webhook that is down: 500 naming the call", async () => {
    const gone = await startConversionWebhookServer(convertGear);
    await gone.close();
    await createCrd("gadgets", "Gadget", { conversionReviewVersions: ["v1"], clientConfig: { url: `${gone.url}/convert`, caBundle: gone.caBundle } });
    expect((await api.admin.post(path("v1", "gadgets"), v1Gear("g", "h:1", "Gadget"))).status).toBe(201);
    const res = await api.admin.get(path("v2", "gadgets", "g"));
    expect(res.status).toBe(500);
    expect(res.json<{ message: string }>().message).toMatch(new RegExp(`^conversion webhook for ${G.replaceAll(".", "\\.")}/v1, Kind=Gadget failed: Post "https://127\\.0\\.0\\.1:${gone.port}/convert\\?timeout=30s": .*ECONNREFUSED`));
    const list = await api.admin.get(path("v2", "gadgets"));
    expect(list.status).toBe(500);
  });

  it("sends v1beta1 reviews when the CRD asks for them first", async () => {
    await createCrd("sprockets", "Sprocket", { conversionReviewVersions: ["v1beta1", "v1"], clientConfig: { url: `${wh.url}/beta`, caBundle: wh.caBundle } });
    wh.reviews.length = 0;
    const res = await api.admin.post(path("v2", "sprockets"), v2Gear("s", "h", 2, "Sprocket"));
    expect(res.status, res.text).toBe(201);
    expect(wh.reviews[0]).toMatchObject({ path: "/beta", review: { apiVersion: `${api.profile.group("apiextensions")}/v1beta1`, kind: "ConversionReview" } });
  });

  it("resolves a service clientConfig through its EndpointSlice, checking the certificate for <service>.<namespace>.svc", async () => {
    const disc = api.profile.group("discovery");
    expect((await api.admin.post(`/api/v1/namespaces/${NS}/services`, { apiVersion: "v1", kind: "Service", metadata: { name: "conv" }, spec: { ports: [{ name: "https", port: 443, targetPort: 9443 }] } })).status).toBe(201);
    const slice = await api.admin.post(`/apis/${disc}/v1/namespaces/${NS}/endpointslices`, {
      apiVersion: `${disc}/v1`,
      kind: "EndpointSlice",
      metadata: { name: "conv-1", labels: { [api.profile.labels.serviceName]: "conv" } },
      addressType: "IPv4",
      endpoints: [{ addresses: ["127.0.0.1"], conditions: { ready: true } }],
      ports: [{ name: "https", port: wh.port, protocol: "TCP" }],
    });
    expect(slice.status, slice.text).toBe(201);
    await createCrd("cogs", "Cog", { conversionReviewVersions: ["v1"], clientConfig: { service: { namespace: NS, name: "conv", path: "/via-service", port: 443 }, caBundle: wh.caBundle } });
    wh.reviews.length = 0;
    const res = await api.admin.post(path("v2", "cogs"), v2Gear("c", "h", 3, "Cog"));
    expect(res.status, res.text).toBe(201);
    expect(wh.reviews.map((r) => r.path)).toContain("/via-service");
    expect((await api.admin.get(path("v1", "cogs", "c"))).json()).toMatchObject({ spec: { hostPort: "h:3" } });
  });
});

describe("conversion webhook: long lists", () => {
  it("converts a list of more than 1 MiB in several reviews, in order", async () => {
    const big = "x".repeat(100 * 1024);
    const names = Array.from({ length: 12 }, (_, i) => `big-${String(i).padStart(2, "0")}`);
    await Promise.all(names.map(async (name, i) => {
      const res = await api.admin.post(path("v1", "sprockets"), { ...v1Gear(name, `h${i}:${i + 1}`, "Sprocket"), metadata: { name, annotations: { filler: big } } });
      expect(res.status, res.text).toBe(201);
    }));
    wh.reviews.length = 0;
    const list = await api.admin.get(path("v2", "sprockets"));
    expect(list.status, list.text).toBe(200);
    const items = list.json<{ items: Array<{ apiVersion: string; metadata: { name: string }; spec: Obj }> }>().items.filter((i) => i.metadata.name.startsWith("big-"));
    expect(items.map((i) => [i.metadata.name, i.apiVersion, i.spec.host, i.spec.port])).toEqual(names.map((n, i) => [n, `${G}/v2`, `h${i}`, i + 1]));
    const sizes = wh.reviews.map((r) => r.review.request.objects.length);
    expect(sizes.length).toBeGreaterThanOrEqual(2);
    expect(sizes.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(12);
    for (const r of wh.reviews) expect(JSON.stringify(r.review.request.objects).length).toBeLessThanOrEqual(1024 * 1024 + 110 * 1024);
  });
});

describe("kubectl 1.34", () => {
  it("gets the non-storage version through the conversion webhook", async () => {
    const home = await mkdtemp(join(tmpdir(), "crd-conversion-kubectl-"));
    try {
      const pki = await ensurePki(api.dir, { profile: api.profile });
      await writeAdminKubeconfig(join(home, "config"), { server: api.replica.url, caPem: pki.ca.certPem, certPem: pki.admin.certPem, keyPem: pki.admin.keyPem, user: "admin", clusterName: "t", contextName: "t" });
      const env = { HOME: home, KUBECONFIG: join(home, "config") };
      const out = await runClient(layerClients().kubectl, ["get", `gears.v2.${G}`, "b", "-n", NS, "-o", "json"], { env });
      expect(out.code, out.stderr).toBe(0);
      expect(JSON.parse(out.stdout)).toMatchObject({ apiVersion: `${G}/v2`, kind: "Gear", spec: { host: "cache", port: 6379 } });
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
