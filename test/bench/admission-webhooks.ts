/**
 * Child process of the admission benchmark: the two loopback HTTPS admission
 * webhooks (a mutating one that adds an annotation, a validating one that
 * allows), in a process of their own as a webhook runs beside a real server,
 * so that the server's event loop carries only the server's side of each call.
 *
 * The server is what an efficient webhook is: a plain Node HTTPS server that
 * reads the body, decodes the whole AdmissionReview, checks its apiVersion, kind
 * and uid, and answers a small AdmissionReview of the same version (the
 * mutating one a JSONPatch for the object it was sent) in one write with a
 * Content-Length; a body it cannot decode is answered 400. It keeps nothing.
 *
 * Messages: `start` → `ready` with the URL and CA bundle; `count` → `counted`
 * with the reviews received per path, the TLS handshakes accepted so far and
 * this process's CPU time so far (ms); `profile` starts V8's CPU profiler and
 * `profile-stop` writes the profile to the given file (→ `profiled`).
 */
import { writeFileSync } from "node:fs";
import { createServer, type ServerOptions } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import { Session } from "node:inspector/promises";
import type { AddressInfo } from "node:net";
import { createCA, createServingCert } from "../../services/apiserver/server/certs.ts";

export type WebhookChildRequest = { type: "start" } | { type: "count" } | { type: "profile" } | { type: "profile-stop"; file: string };
export type WebhookChildReply =
  | { type: "ready"; url: string; caBundle: string }
  | { type: "counted"; byPath: Record<string, number>; handshakes: number; cpuMs: number }
  | { type: "profiling" }
  | { type: "profiled" };

/** What the server needs of a review; anything else in it is decoded and left alone. */
interface ReviewIn {
  apiVersion?: unknown;
  kind?: unknown;
  request?: { uid?: unknown; object?: { metadata?: { annotations?: unknown } } | null };
}

const base64Patch = (ops: unknown[]) => Buffer.from(JSON.stringify(ops)).toString("base64");
/** The mutating webhook's patch: the annotation map is added when the object has none, else the one key. */
const ADD_MAP = base64Patch([{ op: "add", path: "/metadata/annotations", value: { mutated: "yes" } }]);
const ADD_KEY = base64Patch([{ op: "add", path: "/metadata/annotations/mutated", value: "yes" }]);

/** The `response` fields after uid and allowed, per path; undefined: not a webhook of this server. */
function answerFields(path: string, review: ReviewIn): string | undefined {
  if (path === "/validate") return "";
  if (path !== "/mutate") return undefined;
  const annotations = review.request?.object?.metadata?.annotations;
  return `,"patchType":"JSONPatch","patch":"${annotations && typeof annotations === "object" ? ADD_KEY : ADD_MAP}"`;
}

const counts: Record<string, number> = {};
let handshakes = 0;

function reply(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { "content-type": status === 200 ? "application/json" : "text/plain", "content-length": Buffer.byteLength(body) }).end(body);
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q < 0 ? url : url.slice(0, q);
    let review: ReviewIn;
    try {
      review = JSON.parse((chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString("utf8")) as ReviewIn;
    } catch {
      return reply(res, 400, "the body is not JSON");
    }
    const uid = review?.request?.uid;
    if (req.method !== "POST" || typeof review.apiVersion !== "string" || review.kind !== "AdmissionReview" || typeof uid !== "string") return reply(res, 400, "not an AdmissionReview request");
    const fields = answerFields(path, review);
    if (fields === undefined) return reply(res, 404, `no webhook at ${path}`);
    counts[path] = (counts[path] ?? 0) + 1;
    reply(res, 200, `{"apiVersion":${JSON.stringify(review.apiVersion)},"kind":"AdmissionReview","response":{"uid":${JSON.stringify(uid)},"allowed":true${fields}}}`);
  });
}

const ca = await createCA({ commonName: "bench-webhook-ca" });
const serving = await createServingCert(ca, {});
const options: ServerOptions = { key: serving.keyPem, cert: serving.certPem, noDelay: true, keepAliveTimeout: 60_000 };
const server = createServer(options, handle);
server.on("secureConnection", () => handshakes++);
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

const profiler = new Session();
const send = (out: WebhookChildReply) => process.send?.(out);
process.on("message", (msg: WebhookChildRequest) => {
  if (msg.type === "start") send({ type: "ready", url, caBundle: Buffer.from(ca.certPem).toString("base64") });
  else if (msg.type === "count") {
    const cpu = process.cpuUsage();
    send({ type: "counted", byPath: { ...counts }, handshakes, cpuMs: (cpu.user + cpu.system) / 1000 });
  } else if (msg.type === "profile") {
    profiler.connect();
    void profiler
      .post("Profiler.enable")
      .then(() => profiler.post("Profiler.start"))
      .then(() => send({ type: "profiling" }));
  } else if (msg.type === "profile-stop") {
    void profiler.post("Profiler.stop").then(({ profile }) => {
      writeFileSync(msg.file, JSON.stringify(profile));
      profiler.disconnect();
      send({ type: "profiled" });
    });
  }
});
process.on("disconnect", () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
