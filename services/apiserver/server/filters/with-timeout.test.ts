import { describe, expect, it } from "vitest";
import { StatusError } from "../../../../shared/api/status.ts";
import { parseGoDuration, requestDeadlineMs } from "./with-timeout.ts";

describe("request deadline", () => {
  it.each([
    ["0", 0],
    ["30s", 30_000],
    ["1m30s", 90_000],
    ["250ms", 250],
    ["1.5s", 1500],
    ["2h", 7_200_000],
    ["1500us", 1.5],
    ["-3s", -3000],
  ])("parses the Go duration %s", (text, ms) => {
    expect(parseGoDuration(text)).toBe(ms);
  });

  it.each(["", "10", "s", "1x", "1s ", "1 s", ".s"])("refuses %j", (text) => {
    expect(parseGoDuration(text)).toBeUndefined();
  });

  it.each([
    [null, 60_000],
    ["", 60_000],
    ["5s", 5000],
    ["0", 60_000], // no deadline of the client's own: the server's
    ["-1s", 60_000],
    ["2m", 60_000], // never beyond the server's
  ])("timeout=%j under a maximum of 1m is %d ms", (param, ms) => {
    expect(requestDeadlineMs(param, 60_000)).toBe(ms);
  });

  it("answers a malformed timeout with 400", () => {
    try {
      requestDeadlineMs("soon", 60_000);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(StatusError);
      expect((err as StatusError).status).toMatchObject({ code: 400, reason: "BadRequest", message: "invalid timeout specified in the request URL" });
    }
  });
});
