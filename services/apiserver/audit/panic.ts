/**
 * The Panic stage: a request whose handler failed unexpectedly (anything thrown that
 * is not a Status: a bug, not an answer) gets a Panic event instead of
 * ResponseComplete, with the response status the platform records:
 * 500, Failure, InternalError, `APIServer panic'd: <value>`. The client still gets
 * a 500 Status from the error boundary, and the process keeps serving.
 */
import { StatusError } from "../../../shared/api/status.ts";
import type { AuditResponseStatus } from "../server/filters/with-audit.ts";

function statusLike(v: unknown): boolean {
  if (typeof v !== "object" || v === null) return false;
  const o = v as { kind?: unknown; status?: unknown };
  return o.kind === "Status" || (typeof o.status === "object" && o.status !== null && (o.status as { kind?: unknown }).kind === "Status");
}

/** The Panic event's response status for a thrown value, or undefined when it is an ordinary failure (a Status, an aborted request). */
export function panicStatus(thrown: unknown): AuditResponseStatus | undefined {
  if (thrown === undefined || thrown instanceof StatusError || statusLike(thrown)) return undefined;
  if (thrown instanceof Error && thrown.name === "AbortError") return undefined;
  const value = thrown instanceof Error ? thrown.message : String(thrown);
  return { metadata: {}, code: 500, status: "Failure", reason: "InternalError", message: `APIServer panic'd: ${value}` };
}
