/**
 * pods/{name}/proxy and services/{name}/proxy over HTTPS against a real replica: the
 * request (method, path below `proxy`, query, body, content type) reaches a backend on
 * loopback (a pod's `status.podIP` and container port; a service's ready EndpointSlice
 * endpoint for the port number or name), `https:` in the name reaches a TLS backend,
 * and the platform's refusals: 400 for a bad `[scheme:]name[:port]` or a link-local
 * address, 503 for an unknown service port or no ready endpoint, 404 for an unknown pod.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCA, createServingCert } from "../../services/apiserver/server/certs.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

const NS = "proxying";
let api: TestApiserver;
let plain: Server;
let tls: Server;
let plainPort: number;
let tlsPort: number;

/** Answers with what it saw: scheme, method, path and body (`/headers`: the request headers, with headers of its own). */
function echo(scheme: string) {
  return (req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => {
      if (req.url === "/headers") {
        res.writeHead(200, { "content-type": "application/json", "x-backend": "one", "proxy-authenticate": "Basic", "set-cookie": ["a=1", "b=2"] });
        return res.end(JSON.stringify(req.headers));
      }
      res.writeHead(req.url === "/missing" ? 404 : 200, { "content-type": "application/json" });
      res.end(JSON.stringify({ scheme, method: req.method, path: req.url, body, type: req.headers["content-type"] ?? "", auth: req.headers.authorization ?? "" }));
    });
  };
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

async function pod(name: string, podIP: string, ports: number[]): Promise<void> {
  const created = await api.admin.post(`/api/v1/namespaces/${NS}/pods`, {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name },
    spec: { containers: [{ name: "c", image: "busybox:1.36", ports: ports.map((containerPort) => ({ containerPort })) }] },
  });
  expect(created.status, created.text).toBe(201);
  const st = await api.admin.patch(`/api/v1/namespaces/${NS}/pods/${name}/status`, { status: { phase: "Running", podIP, podIPs: [{ ip: podIP }] } }, "application/merge-patch+json");
  expect(st.status, st.text).toBe(200);
}

async function service(name: string, port: { name: string; port: number }, endpoint: { port: number; ready: boolean } | undefined): Promise<void> {
  const svc = await api.admin.post(`/api/v1/namespaces/${NS}/services`, { apiVersion: "v1", kind: "Service", metadata: { name }, spec: { ports: [{ ...port, protocol: "TCP" }] } });
  expect(svc.status, svc.text).toBe(201);
  if (!endpoint) return;
  const slice = await api.admin.post(`/apis/${api.profile.group("discovery")}/v1/namespaces/${NS}/endpointslices`, {
    apiVersion: `${api.profile.group("discovery")}/v1`,
    kind: "EndpointSlice",
    metadata: { name: `${name}-1`, labels: { [api.profile.labels.serviceName]: name } },
    addressType: "IPv4",
    ports: [{ name: port.name, port: endpoint.port, protocol: "TCP" }],
    endpoints: [{ addresses: ["127.0.0.1"], conditions: { ready: endpoint.ready } }],
  });
  expect(slice.status, slice.text).toBe(201);
}

beforeAll(async () => {
  api = await startTestApiserver({ profileId: "kubernetes" });
  plain = createHttpServer(echo("http"));
  plainPort = await listen(plain);
  const ca = await createCA({ commonName: "pod-proxy-ca" });
  const cert = await createServingCert(ca);
  tls = createHttpsServer({ key: cert.keyPem, cert: cert.certPem }, echo("https"));
  tlsPort = await listen(tls);
  expect((await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } })).status).toBe(201);
  await pod("web", "127.0.0.1", [plainPort]);
  await pod("metadata", "169.254.169.254", [80]);
  await service("web", { name: "http", port: 80 }, { port: plainPort, ready: true });
  await service("secure", { name: "tls", port: 443 }, { port: tlsPort, ready: true });
  await service("down", { name: "http", port: 80 }, { port: plainPort, ready: false });
}, 60_000);

afterAll(async () => {
  await api?.close();
  await new Promise<void>((resolve) => (plain ? plain.close(() => resolve()) : resolve()));
  await new Promise<void>((resolve) => (tls ? tls.close(() => resolve()) : resolve()));
});

const podProxy = (name: string, rest = "") => `/api/v1/namespaces/${NS}/pods/${name}/proxy${rest}`;
const svcProxy = (name: string, rest = "") => `/api/v1/namespaces/${NS}/services/${name}/proxy${rest}`;

describe("pods/proxy", () => {
  it("forwards method, path, query and body to the pod's address and first container port", async () => {
    const get = await api.admin.get(podProxy("web", "/some/path?x=1&y=2"));
    expect(get.status, get.text).toBe(200);
    expect(get.json()).toEqual({ scheme: "http", method: "GET", path: "/some/path?x=1&y=2", body: "", type: "", auth: "" });
    const root = await api.admin.get(podProxy("web"));
    expect(root.json()).toMatchObject({ path: "/" });
    const post = await api.admin.request("POST", podProxy(`web:${plainPort}`, "/submit"), { raw: "payload", headers: { "content-type": "text/plain" } });
    expect(post.json()).toMatchObject({ method: "POST", path: "/submit", body: "payload", type: "text/plain" });
    const missing = await api.admin.get(podProxy("web", "/missing"));
    expect(missing.status).toBe(404);
    expect(missing.json()).toMatchObject({ scheme: "http", path: "/missing" });
  });

  it("forwards the caller's headers but hop-by-hop ones, credentials and impersonation, and answers with the backend's", async () => {
    const res = await api.admin.request("GET", podProxy("web", "/headers"), {
      headers: {
        "x-custom": "kept",
        cookie: "session=1",
        "impersonate-user": "proxy-tester",
        "impersonate-group": "system:masters",
        "proxy-authorization": "Basic eDp5",
        te: "trailers",
        connection: "x-private",
        "x-private": "hop",
      },
    });
    expect(res.status, res.text).toBe(200);
    const seen = res.json() as Record<string, string>;
    expect(seen).toMatchObject({ "x-custom": "kept", cookie: "session=1" });
    for (const gone of ["authorization", "impersonate-user", "impersonate-group", "proxy-authorization", "te", "x-private"]) expect(seen[gone], gone).toBeUndefined();
    expect(res.headers["x-backend"]).toBe("one");
    expect(res.headers["set-cookie"]).toEqual(["a=1", "b=2"]);
    expect(res.headers["proxy-authenticate"]).toBeUndefined();
  });

  it("reaches a TLS backend with the https: prefix", async () => {
    const res = await api.admin.get(podProxy(`https:web:${tlsPort}`, "/secure"));
    expect(res.status, res.text).toBe(200);
    expect(res.json()).toMatchObject({ scheme: "https", path: "/secure" });
  });

  it("refuses bad names, link-local addresses and unknown pods", async () => {
    expect((await api.admin.get(podProxy("ftp:web:80"))).json()).toMatchObject({ code: 400, message: 'invalid pod request "ftp:web:80"' });
    expect((await api.admin.get(podProxy("a:b:c:d"))).json()).toMatchObject({ code: 400, message: 'invalid pod request "a:b:c:d"' });
    expect((await api.admin.get(podProxy("metadata", "/latest"))).json()).toMatchObject({ code: 400, reason: "BadRequest", message: "address not allowed" });
    expect((await api.admin.get(podProxy("ghost"))).json()).toMatchObject({ code: 404, message: 'pods "ghost" not found' });
  });
});

describe("services/proxy", () => {
  it("forwards to a ready endpoint by service port number or port name", async () => {
    const byNumber = await api.admin.get(svcProxy("web:80", "/api?q=1"));
    expect(byNumber.status, byNumber.text).toBe(200);
    expect(byNumber.json()).toMatchObject({ scheme: "http", method: "GET", path: "/api?q=1" });
    const byName = await api.admin.request("PUT", svcProxy("web:http", "/put"), { raw: "{}", headers: { "content-type": "application/json" } });
    expect(byName.json()).toMatchObject({ method: "PUT", path: "/put", body: "{}" });
    const tlsRes = await api.admin.get(svcProxy("https:secure:443", "/tls"));
    expect(tlsRes.json()).toMatchObject({ scheme: "https", path: "/tls" });
  });

  it("answers 503 without a matching port or a ready endpoint", async () => {
    expect((await api.admin.get(svcProxy("web:8080"))).json()).toMatchObject({ code: 503, reason: "ServiceUnavailable", message: 'no service port 8080 found for service "web"' });
    expect((await api.admin.get(svcProxy("down:80"))).json()).toMatchObject({ code: 503, message: 'no endpoints available for service "down:80"' });
    expect((await api.admin.get(svcProxy("ftp:web:80"))).json()).toMatchObject({ code: 400, message: 'invalid service request "ftp:web:80"' });
  });
});
