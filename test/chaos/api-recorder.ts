/**
 * Recording client of the cluster chaos suite: the key-value operations of the
 * linearizability model carried out on ConfigMaps of one namespace over HTTPS
 * (one keep-alive connection per client, through the load balancer), each sent
 * once and recorded in the History with its call and return times.
 *
 * The mapping (the key is the ConfigMap's name, the value its `data.v`, unique per write;
 * a revision is a resourceVersion):
 *   put      server-side apply (force): creates or replaces   -> 200/201 ok@rv
 *   cas      expect absent: POST -> 201 ok, 409 failed; expect rv: PUT with
 *            metadata.resourceVersion -> 200 ok, 409/404 failed
 *   get      GET -> 200 value@rv, 404 absent
 *   delete   DELETE with preconditions.resourceVersion of the version this client
 *            last saw -> 200 deleted 1, 404 deleted 0, 409 (precondition) did nothing
 *            and is left out; without a version seen, the client reads instead.
 * A 429 did nothing (left out), and so did a request whose connection failed before
 * TLS was established (never sent). A 5xx answer, a timeout or a lost connection leaves a
 * write *pending* (it may have taken effect): its outcome is settled after the run
 * from the store's history (outcomes.ts). Any other answer is an unexpected failure.
 */
import { Agent, request } from "node:https";
import type { KvInput, KvOutput } from "../support/linearizability/kv-model.ts";
import type { History, KvOp } from "./recorder.ts";

/** Connection failures that show the request never reached a server: it did nothing. */
const NOT_SENT = /before secure TLS connection was established|ECONNREFUSED/;

/** The reason of a Status body ("Conflict", "AlreadyExists", ...), or "" when there is none. */
function reasonOf(body: string): string {
  try {
    return String((JSON.parse(body) as { reason?: unknown }).reason ?? "");
  } catch {
    return "";
  }
}

export type FailureClass = "5xx" | "timeout" | "connection" | "unexpected";

/** A write that got no definite answer. */
export interface UncertainWrite {
  op: KvOp;
  failure: FailureClass;
  status: number;
  message: string;
  /** The value it writes, or for a delete the value of the version it deletes. */
  value: string;
  /** What was going on (the fault active when it was called). */
  during: string;
}

/** What the clients note besides the history: writes without a definite answer, and what each delete targeted. */
export interface WriteLedger {
  uncertain: UncertainWrite[];
  /** Operation id of each delete sent -> the value of the version it targeted. */
  deleteTargets: Map<number, string>;
}

export interface ApiTarget {
  ca: string;
  cert: string;
  key: string;
  namespace: string;
}

interface Answer {
  status: number;
  body: string;
  failure?: FailureClass;
  message?: string;
}

interface ConfigMapBody {
  metadata?: { resourceVersion?: string };
  data?: Record<string, string>;
}

export class ApiRecordingClient {
  private readonly agent: Agent;
  /** The version and value of each key this client last saw. */
  private readonly seen = new Map<string, { rev: number; value: string }>();

  constructor(
    readonly id: number,
    private readonly history: History,
    private readonly target: ApiTarget,
    private readonly timeoutMs: number,
    private readonly ledger: WriteLedger,
    private readonly during: () => string,
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets: 1, ca: target.ca, cert: target.cert, key: target.key });
  }

  private path(name?: string, query = ""): string {
    const base = `/api/v1/namespaces/${this.target.namespace}/configmaps`;
    return `${name === undefined ? base : `${base}/${encodeURIComponent(name)}`}${query}`;
  }

  private send(base: string, method: string, path: string, body?: unknown, contentType = "application/json"): Promise<Answer> {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = { accept: "application/json" };
    if (data !== undefined) {
      headers["content-type"] = contentType;
      // Node frames a DELETE body only with an explicit length.
      headers["content-length"] = String(Buffer.byteLength(data));
    }
    return new Promise((resolve) => {
      let done = false;
      const finish = (a: Answer) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(a);
      };
      const req = request(new URL(path, base), { method, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => finish({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", (err) => finish({ status: 0, body: "", failure: "connection", message: err.message }));
      });
      const timer = setTimeout(() => {
        finish({ status: 0, body: "", failure: "timeout", message: `no answer within ${this.timeoutMs} ms` });
        req.destroy();
      }, this.timeoutMs);
      req.on("error", (err) => finish({ status: 0, body: "", failure: "connection", message: err.message }));
      req.end(data);
    });
  }

  /** Runs one operation against `endpoint` (https://host:port) and records it; returns its output, or undefined when it failed. */
  async run(endpoint: string, input: KvInput): Promise<KvOutput | undefined> {
    const target = input.kind === "delete" ? this.seen.get(input.key) : undefined;
    const effective: KvInput = input.kind === "delete" && target === undefined ? { kind: "get", key: input.key } : input;
    const op: KvOp = { id: this.history.newId(), client: this.id, input: effective, called: performance.now() };
    const during = this.during();
    if (effective.kind === "delete" && target !== undefined) this.ledger.deleteTargets.set(op.id, target.value);
    const answer = await this.execute(endpoint, effective, target?.rev);
    const output = this.outputOf(effective, answer);
    if (output !== undefined) {
      op.output = output;
      op.returned = performance.now();
      this.history.ops.push(op);
      this.learn(effective, output);
      return output;
    }
    this.seen.delete(input.key);
    const unsent = answer.failure === "connection" && NOT_SENT.test(answer.message ?? "");
    const failure: FailureClass | undefined = unsent ? undefined : (answer.failure ?? (answer.status >= 500 ? "5xx" : answer.status === 429 || answer.status === 409 ? undefined : "unexpected"));
    const message = answer.message ?? answer.body.slice(0, 300);
    this.history.noteError(new Error(answer.status === 0 ? `${unsent ? "not sent" : failure}: ${message}` : `HTTP ${answer.status} ${reasonOf(answer.body)}`));
    if (failure !== undefined && effective.kind !== "get") {
      const value = effective.kind === "delete" ? (target?.value ?? "") : effective.value;
      this.ledger.uncertain.push({ op, failure, status: answer.status, message, value, during });
      if (failure !== "unexpected") this.history.ops.push(op);
    }
    return undefined;
  }

  private execute(endpoint: string, input: KvInput, deleteRev: number | undefined): Promise<Answer> {
    const name = input.key;
    const send = (method: string, path: string, body?: unknown, contentType?: string) => this.send(endpoint, method, path, body, contentType);
    const object = (value: string, rv?: number) => ({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name, namespace: this.target.namespace, ...(rv === undefined ? {} : { resourceVersion: String(rv) }) },
      data: { v: value },
    });
    switch (input.kind) {
      case "get":
        return send("GET", this.path(name));
      case "put":
        return send("PATCH", this.path(name, "?fieldManager=chaos&force=true"), object(input.value), "application/apply-patch+yaml");
      case "cas":
        if ("value" in input.expect) throw new Error("compare by value is not an API operation");
        if (input.expect.modRevision === 0) return send("POST", this.path(), object(input.value));
        return send("PUT", this.path(name), object(input.value, input.expect.modRevision));
      case "delete":
        return send("DELETE", this.path(name), { apiVersion: "v1", kind: "DeleteOptions", preconditions: { resourceVersion: String(deleteRev) } });
    }
  }

  /** The model's output for a definite answer; undefined for a failure or a no-op to leave out. */
  private outputOf(input: KvInput, a: Answer): KvOutput | undefined {
    if (a.failure !== undefined) return undefined;
    const rv = () => Number((JSON.parse(a.body) as ConfigMapBody).metadata?.resourceVersion);
    switch (input.kind) {
      case "get":
        if (a.status === 404) return { kind: "get", value: null };
        if (a.status !== 200) return undefined;
        return { kind: "get", value: (JSON.parse(a.body) as ConfigMapBody).data?.v ?? null, modRevision: rv() };
      case "put":
        return a.status === 200 || a.status === 201 ? { kind: "put", revision: rv() } : undefined;
      case "cas":
        if (a.status === 200 || a.status === 201) return { kind: "cas", ok: true, revision: rv() };
        return a.status === 409 || a.status === 404 ? { kind: "cas", ok: false } : undefined;
      case "delete":
        if (a.status === 200 || a.status === 202) return { kind: "delete", deleted: 1 };
        return a.status === 404 ? { kind: "delete", deleted: 0 } : undefined;
    }
  }

  private learn(input: KvInput, out: KvOutput): void {
    const key = input.key;
    if (out.kind === "get" && out.value !== null && out.modRevision !== undefined) this.seen.set(key, { rev: out.modRevision, value: out.value });
    else if (out.kind === "put" && input.kind === "put" && out.revision !== undefined) this.seen.set(key, { rev: out.revision, value: input.value });
    else if (out.kind === "cas" && out.ok && input.kind === "cas" && out.revision !== undefined) this.seen.set(key, { rev: out.revision, value: input.value });
    else this.seen.delete(key);
  }

  close(): void {
    this.agent.destroy();
  }
}
