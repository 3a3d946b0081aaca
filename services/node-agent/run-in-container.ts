/**
 * The debugging handler behind POST /run/{namespace}/{pod}[/{uid}]/{container}: the
 * command line of the `cmd` parameter, split at single spaces, runs in the pod's running
 * instance of the container through CRI ExecSync (no timeout), and the answer is its
 * standard output followed by its standard error as `application/json` (the platform
 * agent's legacy content type for this call). Outcomes carry the platform agent's codes
 * and texts: 404 `pod does not exist` for a pod not bound to this node, 500
 * `container not found ("c")` when no instance runs, 500 `command '<cmd>' exited with
 * <code>: <stderr>` for a non-zero exit, and 500 with the runtime's error otherwise.
 */
import type { ApiObject } from "../../shared/client/object-client.ts";
import type { RuntimeClient } from "./cri/runtime-client.ts";
import { instances } from "./streaming/container-logs.ts";

export interface RunOutcome {
  status: number;
  /** Absent for an empty answer (the platform's agent then writes no body and no type). */
  contentType?: string;
  body: Buffer;
}

export interface RunDeps {
  runtime: RuntimeClient;
  findPod(namespace: string, name: string): ApiObject | undefined;
}

const TEXT = "text/plain; charset=utf-8";

function text(status: number, body: string): RunOutcome {
  return { status, contentType: TEXT, body: Buffer.from(body) };
}

/** The argument vector of a `cmd` value: split at every single space, as the platform's agent does. */
export function runCommand(cmdLine: string): string[] {
  return cmdLine.split(" ");
}

export async function runInContainer(deps: RunDeps, namespace: string, podName: string, container: string, cmdLine: string): Promise<RunOutcome> {
  const pod = deps.findPod(namespace, podName);
  if (!pod) return text(404, "pod does not exist");
  const cmd = runCommand(cmdLine);
  try {
    const running = (await instances(deps.runtime, pod, container)).find((c) => c.state === "CONTAINER_RUNNING");
    if (!running) return text(500, `container not found (${JSON.stringify(container)})`);
    const res = await deps.runtime.execSync({ container_id: running.id, cmd, timeout: 0 });
    if (res.exit_code !== 0) return text(500, `command '${cmd.join(" ")}' exited with ${res.exit_code}: ${res.stderr.toString("utf8")}`);
    const body = Buffer.concat([res.stdout, res.stderr]);
    return body.length === 0 ? { status: 200, body } : { status: 200, contentType: "application/json", body };
  } catch (err) {
    return text(500, err instanceof Error ? err.message : String(err));
  }
}
