/** The in-flight limit half of with-priority-and-fairness: what a request costs its pool. */
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import type { UserInfo } from "../../endpoints/scope.ts";
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
