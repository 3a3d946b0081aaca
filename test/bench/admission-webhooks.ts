/**
 * Child process of the admission benchmark: the two loopback HTTPS admission
 * webhooks (a mutating one that adds an annotation, a validating one that
 * allows), in a process of their own as a webhook runs beside a real server,
 * so that the server's event loop carries only the server's side of each call.
 * Messages: `start` → `ready` with the URL and CA bundle; `count` → `counted`
 * with the reviews received per path and this process's CPU time so far (ms).
 */
import { jsonPatch, startWebhookServer } from "../../services/apiserver/admission/testing/webhook-server.ts";

export type WebhookChildRequest = { type: "start" } | { type: "count" };
export type WebhookChildReply = { type: "ready"; url: string; caBundle: string } | { type: "counted"; byPath: Record<string, number>; cpuMs: number };

const server = await startWebhookServer();
const counts: Record<string, number> = {};
const count = (path: string) => (counts[path] = (counts[path] ?? 0) + 1);
server.on("/mutate", () => {
  count("/mutate");
  return { response: { allowed: true, ...jsonPatch([{ op: "add", path: "/metadata/annotations", value: { mutated: "yes" } }]) } };
});
server.on("/validate", () => {
  count("/validate");
  return { response: { allowed: true } };
});
// The server keeps every review it received; the benchmark does not need them.
setInterval(() => server.reviews.splice(0), 1000).unref();

const send = (reply: WebhookChildReply) => process.send?.(reply);
process.on("message", (msg: WebhookChildRequest) => {
  if (msg.type === "start") send({ type: "ready", url: server.url, caBundle: server.caBundle });
  else if (msg.type === "count") {
    const cpu = process.cpuUsage();
    send({ type: "counted", byPath: { ...counts }, cpuMs: (cpu.user + cpu.system) / 1000 });
  }
});
process.on("disconnect", () => {
  void server.close().finally(() => process.exit(0));
});
