/**
 * Errors printed as the platform's CLI prints them, one line each:
 * `Error from server (NotFound): configmaps "x" not found` for a Status (no reason:
 * `Error from server: ...`), `error: You must be logged in to the server (...)` for a
 * 401, `Unable to connect to the server: ...` for a transport or credential failure,
 * and `error: ...` for everything else (configuration, usage, bad files).
 */
import { StatusError } from "../../shared/api/status.ts";
import { KubeconfigError } from "../../shared/client/kubeconfig.ts";
import { CredentialError } from "../../shared/client/transport.ts";

function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, " ").trim();
}

/** The server's Status as one line, optionally placed in an operation (`error when creating "f.yaml": ...`). */
export function statusLine(err: StatusError, context?: string): string {
  const msg = oneLine(context ? `${context}: ${err.message}` : err.message);
  if (err.code === 401) return `error: You must be logged in to the server (${oneLine(err.message) || "Unauthorized"})`;
  return err.reason ? `Error from server (${err.reason}): ${msg}` : `Error from server: ${msg}`;
}

export function errorLine(err: unknown, context?: string): string {
  if (err instanceof StatusError) {
    if (err.code === 0) return `Unable to connect to the server: ${oneLine(err.message.replace(/^request failed: /, ""))}`;
    return statusLine(err, context);
  }
  if (err instanceof CredentialError) return `Unable to connect to the server: getting credentials: ${oneLine(err.message)}`;
  if (err instanceof KubeconfigError) return `error: ${oneLine(err.message)}`;
  const msg = err instanceof Error ? err.message : String(err);
  return `error: ${oneLine(context ? `${context}: ${msg}` : msg)}`;
}
