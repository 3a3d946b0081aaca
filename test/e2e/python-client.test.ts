/**
 * Debian's python3-kubernetes, unmodified, against the apiserver process: the script
 * under fixtures/ does CRUD (with a 409 on a stale replace and a 404 after delete) and
 * `watch.Watch().stream` resumed from the last resourceVersion it saw.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pythonWithKubernetes, runClient } from "../support/clients.ts";
import { startServerProcess, type ServerProcess } from "../support/server-process.ts";
import { HttpsClient } from "../support/https-client.ts";
import { readFile } from "node:fs/promises";

const NS = "python-client";
const python = pythonWithKubernetes();
if (!python) throw new Error("no python3 can `import kubernetes`: apt-get install python3-kubernetes (npm test's pretest step does this as root)");

describe("python3-kubernetes", () => {
  let server: ServerProcess;

  beforeAll(async () => {
    server = await startServerProcess();
    const pki = join(server.dir, "pki");
    const admin = new HttpsClient(server.url, {
      ca: await readFile(join(pki, "ca.crt"), "utf8"),
      cert: await readFile(join(pki, "admin.crt"), "utf8"),
      key: await readFile(join(pki, "admin.key"), "utf8"),
    });
    const r = await admin.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } } });
    admin.close();
    expect(r.status).toBe(201);
  });

  afterAll(async () => {
    await server?.close();
  });

  it("CRUD and a watch resumed from its resourceVersion", async () => {
    const r = await runClient(python as string, [join(import.meta.dirname, "fixtures", "python_client.py"), server.kubeconfig, NS], { timeoutMs: 60_000 });
    expect(r.code, `stdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(0);
    const steps = r.stdout
      .trim()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { step: string; seen?: string[] });
    expect(steps.map((s) => s.step)).toEqual(["create", "replace", "patch", "conflict", "list", "delete", "watch", "resume"]);
    expect(steps.find((s) => s.step === "resume")?.seen).toEqual(["ADDED w-2", "DELETED w-0"]);
    expect(r.stdout.trim().endsWith("OK")).toBe(true);
  });
});
