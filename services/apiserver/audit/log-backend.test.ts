import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { getProfile } from "../../../shared/platform/index.ts";
import type { AuditEvent } from "../server/filters/with-audit.ts";
import { AuditLogBackend, legacyLine } from "./log-backend.ts";
import { NO_AUDIT_METRICS } from "./metrics.ts";
import { RotatingFile } from "./rotating-file.ts";

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "audit-rotate-"));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const event: AuditEvent = {
  level: "Metadata",
  auditID: "id-1",
  stage: "ResponseComplete",
  requestURI: "/api/v1/namespaces/ns/pods",
  verb: "list",
  user: { username: "alice", groups: ["dev", "system:authenticated"] },
  sourceIPs: ["10.0.0.1"],
  userAgent: "kubectl",
  objectRef: { resource: "pods", namespace: "ns" },
  responseStatus: { metadata: {}, code: 200 },
  requestReceivedTimestamp: "2026-01-02T03:04:05.000000Z",
};

describe("legacy audit line", () => {
  it.each([
    ["a complete event", event, '2026-01-02T03:04:05.000000Z AUDIT: id="id-1" stage="ResponseComplete" ip="10.0.0.1" method="list" user="alice" groups="\\"dev\\",\\"system:authenticated\\"" as="<self>" asgroups="<lookup>" user-agent="kubectl" namespace="ns" uri="/api/v1/namespaces/ns/pods" response="200"\n'],
    [
      "impersonated, no response yet, cluster scope",
      { ...event, stage: "RequestReceived", responseStatus: undefined, objectRef: undefined, impersonatedUser: { username: "bob", groups: ["ops"] }, annotations: { "a/b": "c" } },
      '2026-01-02T03:04:05.000000Z AUDIT: id="id-1" stage="RequestReceived" ip="10.0.0.1" method="list" user="alice" groups="\\"dev\\",\\"system:authenticated\\"" as="bob" asgroups="\\"ops\\"" user-agent="kubectl" namespace="<none>" uri="/api/v1/namespaces/ns/pods" response="<deferred>" a/b="c"\n',
    ],
  ] as const)("%s", (_name, e, line) => {
    expect(legacyLine(e as AuditEvent)).toBe(line);
  });
});

describe("audit log file", () => {
  it("writes JSON lines of Event objects", () => {
    const path = join(tempDir(), "audit.log");
    const backend = new AuditLogBackend(getProfile("kubernetes"), { path, format: "json", maxSizeBytes: 0, maxBackups: 0, maxAgeDays: 0 }, NO_AUDIT_METRICS);
    backend.process(event);
    backend.process({ ...event, auditID: "id-2" });
    void backend.close();
    const lines = readFileSync(path, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [l.kind, l.apiVersion, l.auditID])).toEqual([
      ["Event", `audit.${getProfile("kubernetes").groupDomain}/v1`, "id-1"],
      ["Event", `audit.${getProfile("kubernetes").groupDomain}/v1`, "id-2"],
    ]);
  });

  it("rotates past the size limit, keeps at most maxBackups and none older than maxAge", () => {
    const dir = tempDir();
    let now = Date.parse("2026-03-01T00:00:00Z");
    const file = new RotatingFile(join(dir, "audit.log"), { maxSizeBytes: 100, maxBackups: 2, maxAgeDays: 0, now: () => now });
    for (let i = 0; i < 5; i++) {
      file.write(`${"x".repeat(59)}\n`);
      file.write(`${"y".repeat(59)}\n`);
      now += 1000;
    }
    file.close();
    expect(readdirSync(dir).sort()).toEqual(["audit-2026-03-01T00-00-03.000.log", "audit-2026-03-01T00-00-04.000.log", "audit.log"]);
    expect(readFileSync(join(dir, "audit.log"), "utf8")).toBe(`${"y".repeat(59)}\n`);

    const aged = new RotatingFile(join(dir, "audit.log"), { maxSizeBytes: 100, maxBackups: 0, maxAgeDays: 1, now: () => now });
    const old = join(dir, "audit-2026-03-01T00-00-03.000.log");
    utimesSync(old, new Date(now - 3 * 86_400_000), new Date(now - 3 * 86_400_000));
    aged.write(`${"z".repeat(99)}\n`);
    aged.close();
    expect(readdirSync(dir)).not.toContain("audit-2026-03-01T00-00-03.000.log");
    expect(readdirSync(dir)).toContain("audit-2026-03-01T00-00-04.000.log");
  });
});
