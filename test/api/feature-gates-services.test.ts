/**
 * `--feature-gates` on the controller manager, the store and the node agent: the same
 * registry and parser as the apiserver. Each process, started for real, refuses an
 * unknown gate before doing anything (exit 2, the platform's message on the first
 * line) and lists its gates in `--help`; the tables' other refusals (a locked gate, a
 * value that is not a boolean) and emulated stages through the shared parser.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { FeatureGateError, gatesFromFlag } from "../../shared/featuregate/gates.ts";
import { CONTROLLER_MANAGER_GATES } from "../../services/controller-manager/options.ts";
import { NODE_AGENT_GATES } from "../../services/node-agent/feature-gates.ts";

const ROOT = join(import.meta.dirname, "..", "..");

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(entry: string, args: readonly string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, entry), ...args], { cwd: ROOT, env: { ...process.env, NODE_OPTIONS: "" }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const SERVICES = [
  { name: "controller manager", entry: "services/controller-manager/main.ts", required: ["--kubeconfig", "/nonexistent"], gate: "OrderedNamespaceDeletion (GA, locked to true" },
  { name: "store", entry: "services/store/main.ts", required: [], gate: "TxnModeWriteWithSharedBuffer=true|false (BETA - default=true)" },
  { name: "node agent", entry: "services/node-agent/main.ts", required: ["--kubeconfig", "/nonexistent"], gate: "KubeletFineGrainedAuthz=true|false (BETA - default=true)" },
] as const;

// The processes start together (a start costs seconds on a loaded machine); each test reads its own.
const runs = new Map<string, { refused: Run; help: Run }>();
beforeAll(async () => {
  await Promise.all(
    SERVICES.map(async ({ entry, required }) => {
      const [refused, help] = await Promise.all([run(entry, [...required, "--feature-gates", "AllBeta=false,NoSuchGate=true"]), run(entry, ["--help"])]);
      runs.set(entry, { refused, help });
    }),
  );
}, 120_000);

describe.each(SERVICES)("--feature-gates of the $name", ({ entry, gate }) => {
  it("refuses an unknown gate at start with exit 2 and the platform's message", () => {
    const { refused } = runs.get(entry)!;
    expect(refused.code).toBe(2);
    expect(refused.stderr.split("\n")[0]).toBe("error: invalid argument for --feature-gates: unrecognized feature gate: NoSuchGate");
  });

  it("lists its gates in --help", () => {
    const { help } = runs.get(entry)!;
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--feature-gates");
    expect(help.stdout).toContain("AllAlpha=true|false (ALPHA - default=false)");
    expect(help.stdout).toContain(gate);
  });
});

describe("the services' gate tables through the shared parser", () => {
  it.each([
    ["controller manager", CONTROLLER_MANAGER_GATES, "OrderedNamespaceDeletion=false", "cannot set feature gate OrderedNamespaceDeletion to false, feature is locked to true"],
    ["node agent", NODE_AGENT_GATES, "ContainerCheckpoint=maybe", 'invalid value of ContainerCheckpoint=maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax'],
    ["node agent", NODE_AGENT_GATES, "KubeletFineGrainedAuthz", "missing bool value for KubeletFineGrainedAuthz"],
  ])("%s: %s is refused", (_name, known, entry, message) => {
    expect(() => gatesFromFlag(known, [entry])).toThrow(new FeatureGateError(message));
  });

  it("resolves stages at an emulated release (OrderedNamespaceDeletion was beta and off in 1.32)", () => {
    const gates = gatesFromFlag(CONTROLLER_MANAGER_GATES, ["AllBeta=true"], { major: 1, minor: 32 });
    expect(gates.enabled("OrderedNamespaceDeletion")).toBe(true);
    expect(gatesFromFlag(CONTROLLER_MANAGER_GATES, [], { major: 1, minor: 32 }).enabled("OrderedNamespaceDeletion")).toBe(false);
    expect(gatesFromFlag(CONTROLLER_MANAGER_GATES, ["AllBeta=false"]).enabled("OrderedNamespaceDeletion")).toBe(true);
  });
});
