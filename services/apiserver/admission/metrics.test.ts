import { afterEach, describe, expect, it, vi } from "vitest";
import { MetricsRegistry, SeriesHistogram } from "../../../shared/observability/metrics.ts";
import { declareAdmissionMetrics } from "./metrics.ts";

afterEach(() => {
  vi.restoreAllMocks();
});

/** `<name>{labels} value` lines of the exposition whose metric name starts with `prefix`. */
function lines(text: string, prefix: string): string[] {
  return text.split("\n").filter((l) => l.startsWith(prefix));
}

describe("admission metrics", () => {
  it("observe each plugin, step and webhook under the platform's labels, one series per label tuple", async () => {
    const made = vi.spyOn(SeriesHistogram.prototype, "series");
    const registry = new MetricsRegistry({ currentVersion: "1.35" });
    const m = declareAdmissionMetrics(registry);
    for (let i = 0; i < 4; i++) {
      m.observeController("NamespaceLifecycle", "admit", "CREATE", false, 0.002);
      m.observeStep("admit", "CREATE", false, 0.003);
      m.observeWebhook("hook.example.com", "admit", "CREATE", false, 0.02);
    }
    m.observeController("NamespaceLifecycle", "admit", "CREATE", true, 0.5);
    // Three tuples of plugins (allowed, rejected), one step, one webhook: a series each, made once.
    expect(made).toHaveBeenCalledTimes(4);
    const text = await registry.text();
    expect(lines(text, "apiserver_admission_controller_admission_duration_seconds_count")).toEqual([
      'apiserver_admission_controller_admission_duration_seconds_count{name="NamespaceLifecycle",type="admit",operation="CREATE",rejected="false"} 4',
      'apiserver_admission_controller_admission_duration_seconds_count{name="NamespaceLifecycle",type="admit",operation="CREATE",rejected="true"} 1',
    ]);
    expect(lines(text, 'apiserver_admission_controller_admission_duration_seconds_bucket{le="0.005",name="NamespaceLifecycle",type="admit",operation="CREATE",rejected="false"}')).toEqual([
      'apiserver_admission_controller_admission_duration_seconds_bucket{le="0.005",name="NamespaceLifecycle",type="admit",operation="CREATE",rejected="false"} 4',
    ]);
    expect(lines(text, "apiserver_admission_step_admission_duration_seconds_sum")).toEqual(['apiserver_admission_step_admission_duration_seconds_sum{type="admit",operation="CREATE",rejected="false"} 0.012']);
    expect(lines(text, "apiserver_admission_webhook_admission_duration_seconds_count")).toEqual([
      'apiserver_admission_webhook_admission_duration_seconds_count{name="hook.example.com",type="admit",operation="CREATE",rejected="false"} 4',
    ]);
  });
});
