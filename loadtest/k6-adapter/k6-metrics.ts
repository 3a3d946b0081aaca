/** Stand-in for `k6/metrics` inside a VU of the adapter: custom metrics record samples. */
import type { MetricType } from "./metrics.ts";
import { declared, record } from "./runtime.ts";

class Metric {
  constructor(
    readonly name: string,
    type: MetricType,
  ) {
    declared.set(name, type);
  }

  add(value: number | boolean, tags: Record<string, string> = {}): void {
    record(this.name, Number(value), tags);
  }
}

export class Counter extends Metric {
  constructor(name: string) {
    super(name, "counter");
  }
}

export class Trend extends Metric {
  constructor(name: string) {
    super(name, "trend");
  }
}

export class Rate extends Metric {
  constructor(name: string) {
    super(name, "rate");
  }
}

export class Gauge extends Metric {
  constructor(name: string) {
    super(name, "gauge");
  }
}

export default { Counter, Trend, Rate, Gauge };
