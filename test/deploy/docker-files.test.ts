/**
 * What can be checked of deploy/docker without a Docker engine: each Dockerfile's base
 * image, user, install command, that its COPY sources exist and pass its .dockerignore,
 * that everything its entry point and health check import is copied and every package
 * they import is a production dependency, and that the flags of its CMD, of every
 * compose service and of the health checks are accepted by the services' own parsers;
 * the compose topology mirrors deploy/local (3 store members that name each other,
 * 2 apiservers on all of them, haproxy over both, the controller manager through haproxy
 * from the apiserver image), and haproxy accepts its config file.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { ROOT } from "./support/chart.ts";
import { copySources, includedInContext, parseDockerfile, type Instruction } from "./support/dockerfile.ts";
import { kubeconfigYaml } from "../../services/apiserver/server/certs.ts";
import { loadKubeconfig } from "../../shared/client/kubeconfig.ts";
import { parseApiserverArgs, parseControllerManagerArgs, parseStoreArgs } from "./support/flags.ts";
import { importGraph } from "./support/import-graph.ts";

const DIR = join(ROOT, "deploy", "docker");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string> };

interface ImageCase {
  dockerfile: string;
  entry: string;
  parse: (args: string[]) => unknown;
}
const IMAGES: ImageCase[] = [
  { dockerfile: "apiserver.Dockerfile", entry: "services/apiserver/main.ts", parse: parseApiserverArgs },
  { dockerfile: "store.Dockerfile", entry: "services/store/main.ts", parse: parseStoreArgs },
];

const last = (ins: Instruction[], op: string) => ins.filter((i) => i.op === op).pop();

describe.each(IMAGES)("$dockerfile", ({ dockerfile, entry, parse: parseArgs }) => {
  const ins = parseDockerfile(readFileSync(join(DIR, dockerfile), "utf8"));
  const ignore = readFileSync(join(DIR, `${dockerfile}.dockerignore`), "utf8");
  const sources = copySources(ins);
  const entrypoint = last(ins, "ENTRYPOINT")?.exec ?? [];
  const health = last(ins, "HEALTHCHECK")?.exec ?? [];
  const scriptOf = (argv: string[]) => argv.find((a) => a.endsWith(".ts")) ?? "";

  it("builds on node:20-bookworm-slim, installs production packages only and runs as a non-root user", () => {
    expect(ins.filter((i) => i.op === "FROM").map((i) => i.rest.split(/\s+/)[0])).toEqual(["node:20-bookworm-slim", "node:20-bookworm-slim"]);
    expect(ins.some((i) => i.op === "RUN" && /npm install .*--omit=dev/.test(i.rest))).toBe(true);
    expect(last(ins, "USER")?.rest).toMatch(/^(node|[1-9]\d*)(:\S+)?$/);
    expect(entrypoint.slice(0, 3)).toEqual(["node", "--import", "tsx"]);
    expect(scriptOf(entrypoint)).toBe(entry);
  });

  it("copies paths that exist and that its .dockerignore sends to the build", () => {
    expect(sources.length).toBeGreaterThan(0);
    for (const src of sources) {
      expect(existsSync(join(ROOT, src)), src).toBe(true);
      expect(includedInContext(ignore, src), `${src} is ignored`).toBe(true);
    }
    expect(includedInContext(ignore, "node_modules/tsx/package.json")).toBe(false);
    expect(includedInContext(ignore, "services/store/server/kv-service.test.ts")).toBe(false);
    expect(includedInContext(ignore, ".plat/admin.kubeconfig")).toBe(false);
  });

  it("copies every file its entry point and health check load, and they import production dependencies only", () => {
    const graph = importGraph(ROOT, [entry, scriptOf(health)]);
    const copied = (f: string) => sources.some((s) => f === s || f.startsWith(`${s.replace(/\/$/, "")}/`));
    expect(graph.files.filter((f) => !copied(f) || !includedInContext(ignore, f))).toEqual([]);
    const runtime = [...graph.packages, "tsx"].filter((p) => !builtinModules.includes(p));
    expect(runtime.filter((p) => !(p in pkg.dependencies))).toEqual([]);
  });

  it("passes its CMD flags and health check to what accepts them", () => {
    expect(() => parseArgs(last(ins, "CMD")?.exec ?? [])).not.toThrow();
    expect(health.slice(0, 3)).toEqual(["node", "--import", "tsx"]);
    expect(sources).toContain(scriptOf(health));
  });
});

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  entrypoint?: string[];
  network_mode?: string;
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
}
const compose = parse(readFileSync(join(DIR, "compose.yaml"), "utf8"), { merge: true }) as { services: Record<string, ComposeService>; volumes: Record<string, unknown> };
// Compose's `${NAME:-default}` interpolation, with the defaults.
const interpolate = (args: string[] = []) => args.map((a) => a.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, "$1"));
const STORES = ["store-1", "store-2", "store-3"];
const APISERVERS = ["apiserver-1", "apiserver-2"];

describe("compose.yaml", () => {
  it("has the topology of deploy/local: redis, 3 store members, 2 apiservers and haproxy", () => {
    expect(Object.keys(compose.services).sort()).toEqual(["apiserver-1", "apiserver-2", "controller-manager", "haproxy", "redis", ...STORES].sort());
    for (const name of [...STORES, ...APISERVERS]) {
      const b = compose.services[name].build;
      expect(b, name).toBeDefined();
      expect(existsSync(join(DIR, b?.context ?? "", b?.dockerfile ?? "")), `${name} ${b?.dockerfile}`).toBe(true);
    }
  });

  it("starts store members that name each other by service name, each with its own data volume", () => {
    const peers = STORES.map((s) => `${s}=http://${s}:2380`);
    for (const name of STORES) {
      const s = compose.services[name];
      const config = parseStoreArgs(interpolate(s.command));
      expect(config.name).toBe(name);
      expect(config.initialCluster.map((m) => `${m.name}=${m.peerUrls.join("")}`)).toEqual(peers);
      expect(config.advertiseClientUrls).toEqual([`http://${name}:2379`]);
      expect(config.redisUrl).toBe("redis://redis:6379");
      expect(config.dataDir.startsWith("/var/lib/store/")).toBe(true);
      expect(s.volumes).toEqual([`${name}-data:/var/lib/store`]);
      expect(compose.volumes).toHaveProperty(`${name}-data`);
    }
  });

  it("starts apiservers on every store member and redis, sharing one certificate volume, the second after the first", () => {
    for (const name of APISERVERS) {
      const cmd = parseApiserverArgs(interpolate(compose.services[name].command));
      expect(cmd.flags["store-endpoints"]).toEqual(STORES.map((s) => `${s}:2379`));
      expect(cmd.flags["redis-url"]).toBe("redis://redis:6379");
      expect(cmd.flags["data-dir"]).toBe("/var/lib/apiserver");
      expect(compose.services[name].volumes).toEqual(["apiserver-pki:/var/lib/apiserver"]);
    }
    expect(compose.services["apiserver-2"].depends_on).toEqual({ "apiserver-1": { condition: "service_healthy" } });
  });

  it("balances haproxy over both apiservers with a config file haproxy accepts", () => {
    const mount = (compose.services.haproxy.volumes ?? [])[0] ?? "";
    const file = join(DIR, mount.split(":")[0]);
    expect(existsSync(file)).toBe(true);
    const servers = [...readFileSync(file, "utf8").matchAll(/^\s*server\s+\S+\s+([^:\s]+):(\d+)/gm)].map((m) => `${m[1]}:${m[2]}`);
    expect(servers).toEqual(APISERVERS.map((a) => `${a}:6443`));
    let haproxy = true;
    try {
      execFileSync("haproxy", ["-v"], { stdio: "ignore" });
    } catch {
      haproxy = false;
      console.log("haproxy is not installed: its check of the config file (haproxy -c) is not run");
    }
    if (haproxy) expect(execFileSync("haproxy", ["-c", "-f", file], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })).toContain("Configuration file is valid");
  });

  it("runs the controller manager from the apiserver image, whose copies hold everything it imports, with flags its parser accepts", () => {
    const cm = compose.services["controller-manager"];
    expect(cm.image).toBe(compose.services["apiserver-1"].image);
    const [shell, dashC, script, ...rest] = cm.entrypoint ?? [];
    expect([shell, dashC, rest]).toEqual(["sh", "-c", ["controller-manager"]]);
    // `exec node --import tsx <main> <flags> "$@"` (compose turns `$$` into `$`), the compose command as "$@".
    const exec = /exec (node --import tsx \S+)((?: --\S+)*) "\$\$@"/.exec(script ?? "");
    expect(exec, script).not.toBeNull();
    const [node, imp, tsx, entry] = (exec?.[1] ?? "").split(" ");
    expect([node, imp, tsx, entry]).toEqual(["node", "--import", "tsx", "services/controller-manager/main.ts"]);
    const flags = parseControllerManagerArgs([...(exec?.[2] ?? "").trim().split(" "), ...interpolate(cm.command)]);
    expect(flags.profile).toBe("plat");
    const ins = parseDockerfile(readFileSync(join(DIR, "apiserver.Dockerfile"), "utf8"));
    const ignore = readFileSync(join(DIR, "apiserver.Dockerfile.dockerignore"), "utf8");
    const sources = copySources(ins);
    const graph = importGraph(ROOT, [entry]);
    const copied = (f: string) => sources.some((src) => f === src || f.startsWith(`${src.replace(/\/$/, "")}/`));
    expect(graph.files.filter((f) => !copied(f) || !includedInContext(ignore, f))).toEqual([]);
    expect([...graph.packages].filter((p) => !builtinModules.includes(p) && !(p in pkg.dependencies))).toEqual([]);
  });

  it("gives the controller manager the replicas' admin configuration with haproxy's address, in haproxy's network", () => {
    const cm = compose.services["controller-manager"];
    expect(cm.network_mode).toBe("service:haproxy");
    expect(cm.volumes).toEqual(["apiserver-pki:/var/lib/apiserver:ro"]);
    const script = (cm.entrypoint ?? [])[2] ?? "";
    const rewrite = /^(sed '[^']*') (\S+) > (\S+) &&/.exec(script);
    expect(rewrite, script).not.toBeNull();
    const dataDir = parseApiserverArgs(interpolate(compose.services["apiserver-1"].command)).flags["data-dir"];
    expect(rewrite?.[2]).toBe(`${dataDir}/admin.kubeconfig`);
    expect(script).toContain(`--kubeconfig=${rewrite?.[3]}`);
    expect(compose.services.haproxy.depends_on).toMatchObject({ "apiserver-1": { condition: "service_healthy" } });
    // The rewrite on a configuration as the replicas write it: the server becomes haproxy's port on loopback.
    const dir = mkdtempSync(join(tmpdir(), "compose-cm-"));
    try {
      const admin = join(dir, "admin.kubeconfig");
      const pem = "-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n";
      writeFileSync(admin, kubeconfigYaml({ server: "https://0.0.0.0:6443", caPem: pem, certPem: pem, keyPem: pem, user: "admin", clusterName: "local", contextName: "admin@local" }));
      execFileSync("sh", ["-c", `${rewrite?.[1]} ${admin} > ${join(dir, "out")}`]);
      expect(loadKubeconfig(join(dir, "out")).server).toBe("https://127.0.0.1:6443");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const port = /^\s*bind\s+:(\d+)/m.exec(readFileSync(join(DIR, "haproxy.cfg"), "utf8"))?.[1];
    expect(port).toBe("6443");
  });
});
