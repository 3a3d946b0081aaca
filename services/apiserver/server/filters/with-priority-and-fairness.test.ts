/** The in-flight limit half of with-priority-and-fairness: what a request costs its pool. */
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import type { UserInfo } from "../../endpoints/scope.ts";
import type { Admission, ApfDispatcher } from "../../flowcontrol/dispatch/dispatcher.ts";
import { chain, createRequestContext, type Handler, type RequestContext } from "./context.ts";
import { InFlightLimiter } from "./in-flight-limiter.ts";
import { withPriorityAndFairness } from "./with-priority-and-fairness.ts";
import { withRequestInfo } from "./with-request-info.ts";
import type { ObjectCount } from "./work-estimate.ts";

const ok: Handler = async () => new Response("ok");
const user = (username: string): UserInfo => ({ username, groups: ["system:authenticated"] });

/** A request whose node response stays open until its `close` is emitted (a streamed list). */
function open(path: string, who: UserInfo): { ctx: RequestContext; out: EventEmitter } {
  const ctx = createRequestContext(new Request(`https://127.0.0.1${path}`), undefined, undefined);
  ctx.user = who;
  const out = Object.assign(new EventEmitter(), { closed: false, destroyed: false });
  ctx.outgoing = out as unknown as RequestContext["outgoing"];
  return { ctx, out };
}

describe("with-priority-and-fairness without APF (the in-flight limit)", () => {
  // 5,000 stored objects of 10 KB: a list of them is the work estimate's widest request (10 seats)
  const manyObjects: ObjectCount = () => ({ objects: 5_000, averageBytes: 10_000 });

  it("counts a large list as one request of the read-only pool, as the platform's max-in-flight filter does", async () => {
    const limiter = new InFlightLimiter({ maxReadOnly: 10, maxMutating: 5 });
    const filter = withPriorityAndFairness(limiter, manyObjects, 60_000);
    const lists = ["alice", "bob", "carol"].map((name) => open("/api/v1/namespaces/ns/configmaps", user(name)));
    for (const l of lists) {
      const response = await chain(ok, [withRequestInfo, filter])(l.ctx);
      expect(response.status).toBe(200);
    }
    expect(limiter.seatsInUse("readOnly")).toBe(3);
    expect(limiter.counts.readOnly).toBe(3);
    for (const l of lists) l.out.emit("close");
    expect(limiter.seatsInUse("readOnly")).toBe(0);
  });
});

describe("with-priority-and-fairness passes an admitted request on within the call", () => {
  const reaching = (): { next: Handler; reached: () => boolean } => {
    let reached = false;
    return {
      next: () => {
        reached = true;
        return Promise.resolve(new Response("ok"));
      },
      reached: () => reached,
    };
  };

  it("under the in-flight limit: the seat comes back once the response closes", async () => {
    const limiter = new InFlightLimiter({ maxReadOnly: 1, maxMutating: 1 });
    const { ctx, out } = open("/api/v1/namespaces/ns/configmaps/c", user("alice"));
    const { next, reached } = reaching();
    const answer = chain(next, [withRequestInfo, withPriorityAndFairness(limiter)])(ctx);
    expect(reached()).toBe(true);
    expect((await answer).status).toBe(200);
    expect(limiter.seatsInUse("readOnly")).toBe(1);
    out.emit("close");
    out.emit("close");
    expect(limiter.seatsInUse("readOnly")).toBe(0);
  });

  it("under APF: admitted at once, the handler runs within the call and the seats come back once; a refusal is thrown synchronously (no promise)", async () => {
    const released: boolean[] = [];
    let refuse = false;
    const queued: { admission?: Promise<Admission> } = {};
    const cls = { flowSchema: { name: "fs", uid: "fs-uid" }, priorityLevel: { name: "pl", uid: "pl-uid" }, flowDistinguisher: "" };
    const dispatcher = {
      classify: () => cls,
      maxSeats: () => 0,
      waitLimitMs: () => 1000,
      admit: (): Admission | Promise<Admission> =>
        queued.admission ?? (refuse ? { admitted: false, retryAfterSeconds: 3 } : { admitted: true, release: (watch: boolean) => void released.push(watch) }),
      registerWatch: () => () => {},
    } as unknown as ApfDispatcher;
    const filter = withPriorityAndFairness({ dispatcher, profile: { displayName: "Kubernetes" } });
    const { ctx, out } = open("/api/v1/namespaces/ns/configmaps/c", user("alice"));
    const { next, reached } = reaching();
    const answer = chain(next, [withRequestInfo, filter])(ctx);
    expect(reached()).toBe(true);
    expect((await answer).status).toBe(200);
    expect(released).toEqual([]);
    out.emit("close");
    out.emit("close");
    expect(released).toEqual([false]);
    expect(ctx.answerHeaders).toEqual(["X-Kubernetes-PF-FlowSchema-UID", "fs-uid", "X-Kubernetes-PF-PriorityLevel-UID", "pl-uid"]);

    refuse = true;
    const refused = open("/api/v1/namespaces/ns/configmaps/c", user("bob"));
    expect(() => chain(ok, [withRequestInfo, filter])(refused.ctx)).toThrow(/Too many requests/);
    expect(refused.ctx.terminated).toBe(true);

    queued.admission = Promise.resolve({ admitted: true, release: (watch: boolean) => void released.push(watch) });
    const waited = open("/api/v1/namespaces/ns/configmaps/c", user("carol"));
    expect((await chain(ok, [withRequestInfo, filter])(waited.ctx)).status).toBe(200);
    waited.out.emit("close");
    expect(released).toEqual([false, false]);
  });
});
