import { afterEach, describe, expect, it, vi } from "vitest";
import { MetricsRegistry } from "../../../../shared/observability/metrics.ts";
import { declareFlowMetrics, LevelMetrics } from "./metrics.ts";

describe("a priority level's request metrics", () => {
  afterEach(() => vi.restoreAllMocks());

  it("record a request's life on held series: prom-client's labelled inc and observe are not called per request", async () => {
    const registry = new MetricsRegistry({ currentVersion: "1.35" });
    const flow = declareFlowMetrics(registry);
    const level = new LevelMetrics(flow, "workload-low", 40);
    const oneRequest = () => {
      level.waiting("service-accounts", 1, 1);
      level.waiting("service-accounts", -1, -1);
      level.estimated("service-accounts", 1);
      level.dispatched("service-accounts", 2);
      level.executing("service-accounts", 1, 1);
      level.executing("service-accounts", -1, -1);
      level.executed("service-accounts", 0.003, false);
      level.watchCount("service-accounts", 3);
    };
    oneRequest();
    const labelled = [
      ...[flow.inqueueRequests, flow.inqueueSeats, flow.executingRequests, flow.executingSeats, flow.dispatched].map((m) => vi.spyOn(m, "inc")),
      ...[flow.waitDuration, flow.executionSeconds, flow.workEstimatedSeats, flow.watchCountSamples].map((m) => vi.spyOn(m, "observe")),
    ];
    for (let i = 0; i < 9; i++) oneRequest();
    expect(labelled.map((s) => s.mock.calls.length)).toEqual(labelled.map(() => 0));
    vi.restoreAllMocks();

    const text = await registry.text();
    const labels = 'priority_level="workload-low",flow_schema="service-accounts"';
    const line = (start: string) => text.split("\n").find((l) => l.startsWith(start));
    expect(line(`apiserver_flowcontrol_dispatched_requests_total{${labels}}`)).toMatch(/ 10$/);
    expect(line(`apiserver_flowcontrol_current_executing_requests{${labels}}`)).toMatch(/ 0$/);
    expect(line(`apiserver_flowcontrol_current_inqueue_seats{${labels}}`)).toMatch(/ 0$/);
    expect(line(`apiserver_flowcontrol_request_wait_duration_seconds_count{${labels},execute="true"}`)).toMatch(/ 10$/);
    expect(line(`apiserver_flowcontrol_request_execution_seconds_count{${labels},type="regular"}`)).toMatch(/ 10$/);
    expect(line(`apiserver_flowcontrol_work_estimated_seats_count{${labels}}`)).toMatch(/ 10$/);
    expect(line(`apiserver_flowcontrol_watch_count_samples_sum{${labels}}`)).toMatch(/ 30$/);
    level.executing("service-accounts", 2, 3);
    expect(await registry.text()).toContain(`apiserver_flowcontrol_current_executing_seats{${labels}} 3`);
  });
});
