import { describe, expect, it } from "vitest";
import { callNext } from "./call-next.ts";
import { createRequestContext, type Handler } from "./context.ts";

const ctx = () => createRequestContext(new Request("https://127.0.0.1/api"), undefined, undefined);

describe("callNext", () => {
  it("settles what the filter holds and rethrows the same error when the handler throws before it has a promise", () => {
    const boom = new Error("boom");
    let settled = 0;
    const next: Handler = () => {
      throw boom;
    };
    expect(() => callNext(next, ctx(), { settle: () => settled++ })).toThrow(boom);
    expect(settled).toBe(1);
  });

  it("passes the handler's own promise on without settling", async () => {
    let settled = 0;
    const answer = Promise.resolve(new Response("ok"));
    const returned = callNext(() => answer, ctx(), { settle: () => settled++ });
    expect(returned).toBe(answer);
    await returned;
    expect(settled).toBe(0);
  });
});
