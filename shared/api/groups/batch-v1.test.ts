import { describe, expect, it } from "vitest";
import { validateImmutable } from "../../schema/index.ts";
import type { Schema } from "../../schema/types.ts";
import { admit, defaultObject, deleteAt, getAt, mutate, paths, setAt } from "../testing/sample-harness.ts";
import { kinds } from "./batch-v1.ts";
import { cronScheduleError, timeZoneError } from "./batch-v1-rules.ts";
import { byKind, sampleOf, sampleSuite } from "../testing/sample-suite.ts";

const DIR = "batch-v1";
const def = (k: string) => byKind(kinds, k);
const sample = (k: string) => sampleOf(DIR, kinds, k);
const props = (s: Schema | undefined): Record<string, Schema> => s?.properties ?? {};

sampleSuite({
  dir: DIR,
  kinds,
  defaults: {
    Job: {
      "spec.completions": 1,
      "spec.parallelism": 1,
      "spec.backoffLimit": 3,
      "spec.completionMode": "NonIndexed",
      "spec.suspend": false,
      "spec.podReplacementPolicy": "Failed",
      "spec.podFailurePolicy.rules[1].onPodConditions[0].status": "True",
      "metadata.labels": { [Object.keys(getAt(sample("Job"), "spec.template.metadata.labels") as object)[0]]: "shop-db-migrate" },
    },
    CronJob: {
      "spec.concurrencyPolicy": "Forbid",
      "spec.suspend": false,
      "spec.successfulJobsHistoryLimit": 3,
      "spec.failedJobsHistoryLimit": 1,
      "spec.jobTemplate.spec.backoffLimit": 2,
      "spec.jobTemplate.spec.suspend": undefined,
      "spec.jobTemplate.spec.podReplacementPolicy": undefined,
      "spec.jobTemplate.spec.template.spec.containers[0].terminationMessagePolicy": "File",
    },
  },
  mutations: [
    {
      name: "unknown nested field",
      kind: "Job",
      edit: (o) => setAt(o, "spec.podFailurePolicy.rules[0].onExitCodes.operatr", "In"),
      unknown: ["spec.podFailurePolicy.rules[0].onExitCodes.operatr"],
    },
    { name: "wrong type", kind: "Job", edit: (o) => setAt(o, "spec.backoffLimit", "3"), errors: ["spec.backoffLimit"], types: ["FieldValueTypeInvalid"] },
    { name: "bad name", kind: "Job", edit: (o) => setAt(o, "metadata.name", "DB-Migrate"), errors: ["metadata.name"] },
    { name: "missing template", kind: "Job", edit: (o) => deleteAt(o, "spec.template"), errors: ["spec.template"], types: ["FieldValueRequired"] },
    { name: "bad completion mode", kind: "Job", edit: (o) => setAt(o, "spec.completionMode", "Sequential"), errors: ["spec.completionMode"], types: ["FieldValueNotSupported"] },
    { name: "bad pod failure action", kind: "Job", edit: (o) => setAt(o, "spec.podFailurePolicy.rules[0].action", "Retry"), errors: ["spec.podFailurePolicy.rules[0].action"] },
    {
      name: "restartPolicy Always (and not Never with a pod failure policy)",
      kind: "Job",
      edit: (o) => setAt(o, "spec.template.spec.restartPolicy", "Always"),
      errors: ["spec.template.spec.restartPolicy", "spec.template.spec.restartPolicy"],
      types: ["FieldValueNotSupported", "FieldValueInvalid"],
    },
    {
      name: "Indexed without completions",
      kind: "Job",
      edit: (o) => {
        setAt(o, "spec.completionMode", "Indexed");
        setAt(o, "spec.parallelism", 2);
      },
      errors: ["spec.completions"],
    },
    { name: "maxFailedIndexes without backoffLimitPerIndex", kind: "Job", edit: (o) => setAt(o, "spec.maxFailedIndexes", 2), errors: ["spec.maxFailedIndexes"] },
    {
      name: "replacement on termination with a pod failure policy",
      kind: "Job",
      edit: (o) => setAt(o, "spec.podReplacementPolicy", "TerminatingOrFailed"),
      errors: ["spec.podReplacementPolicy"],
    },
    { name: "negative activeDeadlineSeconds", kind: "Job", edit: (o) => setAt(o, "spec.activeDeadlineSeconds", -5), errors: ["spec.activeDeadlineSeconds"] },
    { name: "unknown nested field", kind: "CronJob", edit: (o) => setAt(o, "spec.jobTemplate.spec.templat", {}), unknown: ["spec.jobTemplate.spec.templat"] },
    { name: "wrong type", kind: "CronJob", edit: (o) => setAt(o, "spec.suspend", "no"), errors: ["spec.suspend"], types: ["FieldValueTypeInvalid"] },
    { name: "missing schedule", kind: "CronJob", edit: (o) => deleteAt(o, "spec.schedule"), errors: ["spec.schedule"], types: ["FieldValueRequired"] },
    { name: "bad concurrency policy", kind: "CronJob", edit: (o) => setAt(o, "spec.concurrencyPolicy", "Queue"), errors: ["spec.concurrencyPolicy"], types: ["FieldValueNotSupported"] },
    { name: "minute out of range", kind: "CronJob", edit: (o) => setAt(o, "spec.schedule", "61 2 * * *"), errors: ["spec.schedule"] },
    { name: "time zone in the schedule", kind: "CronJob", edit: (o) => setAt(o, "spec.schedule", "CRON_TZ=UTC 30 2 * * *"), errors: ["spec.schedule"] },
    { name: "unknown time zone", kind: "CronJob", edit: (o) => setAt(o, "spec.timeZone", "Mars/Olympus_Mons"), errors: ["spec.timeZone"] },
    { name: "name longer than 52 characters", kind: "CronJob", edit: (o) => setAt(o, "metadata.name", "n".repeat(53)), errors: ["metadata.name"] },
    { name: "bad name", kind: "CronJob", edit: (o) => setAt(o, "metadata.name", "Nightly"), errors: ["metadata.name"] },
    {
      name: "template restartPolicy Always",
      kind: "CronJob",
      edit: (o) => setAt(o, "spec.jobTemplate.spec.template.spec.restartPolicy", "Always"),
      errors: ["spec.jobTemplate.spec.template.spec.restartPolicy"],
    },
    {
      name: "container without an image",
      kind: "CronJob",
      edit: (o) => deleteAt(o, "spec.jobTemplate.spec.template.spec.containers[0].image"),
      errors: ["spec.jobTemplate.spec.template.spec.containers[0].image"],
    },
    { name: "container without an image", kind: "Job", edit: (o) => setAt(o, "spec.template.spec.containers[0].image", " "), errors: ["spec.template.spec.containers[0].image"] },
    { name: "negative history limit", kind: "CronJob", edit: (o) => setAt(o, "spec.successfulJobsHistoryLimit", -1), errors: ["spec.successfulJobsHistoryLimit"] },
  ],
});

describe("batch/v1 kinds", () => {
  it("declares resources, short names, categories and selectable fields", () => {
    expect(kinds.map((k) => [k.kind, k.plural, k.shortNames ?? [], k.categories, k.subresources])).toEqual([
      ["Job", "jobs", [], ["all"], ["status"]],
      ["CronJob", "cronjobs", ["cj"], ["all"], ["status"]],
    ]);
    expect(def("Job").selectableFields).toEqual(["status.successful"]);
  });

  it("uses the platform's protobuf field numbers and list markers", () => {
    const spec = props(props(def("Job").schema).spec);
    expect(Object.fromEntries(Object.entries(spec).map(([k, v]) => [k, v.protoTag]))).toEqual({
      parallelism: 1,
      completions: 2,
      activeDeadlineSeconds: 3,
      podFailurePolicy: 11,
      successPolicy: 16,
      backoffLimit: 7,
      backoffLimitPerIndex: 12,
      maxFailedIndexes: 13,
      selector: 4,
      manualSelector: 5,
      template: 6,
      ttlSecondsAfterFinished: 8,
      completionMode: 9,
      suspend: 10,
      podReplacementPolicy: 14,
      managedBy: 15,
    });
    const status = props(props(def("Job").schema).status);
    expect([status.conditions.listType, status.conditions.patchStrategy, status.conditions.patchMergeKey]).toEqual(["atomic", "merge", "type"]);
    expect([status.terminating.protoTag, status.ready.protoTag, status.failedIndexes.protoTag]).toEqual([11, 9, 10]);
    const cron = props(props(def("CronJob").schema).spec);
    expect([cron.schedule.protoTag, cron.timeZone.protoTag, cron.jobTemplate.protoTag, cron.failedJobsHistoryLimit.protoTag]).toEqual([1, 8, 5, 7]);
    expect(props(props(def("CronJob").schema).status).lastSuccessfulTime.protoTag).toBe(5);
  });

  it("keeps a Job's selector and template immutable, but not a CronJob's template", () => {
    const job = admit(def("Job"), sample("Job")).defaulted;
    const changed = mutate(job, (o) => {
      setAt(o, "spec.template.spec.containers[0].image", "other:1");
      setAt(o, "spec.completionMode", "Indexed");
      setAt(o, "spec.parallelism", 4);
    });
    expect(paths(validateImmutable(def("Job").schema, job, changed))).toEqual(["spec.template", "spec.completionMode"]);
    const cj = admit(def("CronJob"), sample("CronJob")).defaulted;
    const cjChanged = mutate(cj, (o) => setAt(o, "spec.jobTemplate.spec.template.spec.containers[0].image", "other:1"));
    expect(validateImmutable(def("CronJob").schema, cj, cjChanged)).toEqual([]);
  });

  it("defaults the backoff limit from backoffLimitPerIndex, and parallelism without completions", () => {
    const perIndex = defaultObject(
      def("Job"),
      mutate(sample("Job"), (o) => {
        deleteAt(o, "spec.backoffLimit");
        deleteAt(o, "spec.podFailurePolicy");
        setAt(o, "spec.backoffLimitPerIndex", 1);
        setAt(o, "spec.completionMode", "Indexed");
        setAt(o, "spec.completions", 4);
      }),
    );
    expect(getAt(perIndex, "spec.backoffLimit")).toBe(2147483647);
    expect([getAt(perIndex, "spec.completions"), getAt(perIndex, "spec.parallelism")]).toEqual([4, 1]);
    expect(getAt(perIndex, "spec.podReplacementPolicy")).toBe("TerminatingOrFailed");
    expect(admit(def("Job"), perIndex).errors).toEqual([]);
  });

  it("parses cron schedules and time zones like the platform", () => {
    for (const ok of ["*/15 0-6 * JAN-MAR MON-FRI", "0 0 1,15 * *", "@hourly", "@every 1h30m", "5 4 * * sun", "0 12 ? * *"]) expect(cronScheduleError(ok), ok).toBeUndefined();
    expect(cronScheduleError("* * * *")).toBe("expected exactly 5 fields, found 4: [* * * *]");
    expect(cronScheduleError("0 24 * * *")).toBe("end of range (24) above maximum (23): 24");
    expect(cronScheduleError("0 0 0 * *")).toBe("beginning of range (0) below minimum (1): 0");
    expect(cronScheduleError("0 0 * * FUN")).toMatch(/^failed to parse int from FUN/);
    expect(cronScheduleError("@fortnightly")).toBe("unrecognized descriptor: @fortnightly");
    expect(timeZoneError("Europe/Berlin")).toBeUndefined();
    expect(timeZoneError("Etc/UTC")).toBeUndefined();
    expect(timeZoneError("Local")).toMatch(/explicit time zone/);
    expect(timeZoneError("../etc/passwd")).toBe("unknown time zone ../etc/passwd");
  });

  it("prints the platform's columns and cells", () => {
    const names = (k: string) => (def(k).tableColumns ?? []).map((c) => `${c.name}${c.priority ? "*" : ""}`);
    expect(names("Job")).toEqual(["Status", "Completions", "Duration", "Age", "Containers*", "Images*", "Selector*"]);
    expect(names("CronJob")).toEqual(["Schedule", "Timezone", "Suspend", "Active", "Last Schedule", "Age", "Containers*", "Images*", "Selector*"]);
    const done = mutate(admit(def("Job"), sample("Job")).defaulted, (o) =>
      setAt(o, "status", {
        succeeded: 1,
        startTime: "2024-05-01T10:00:00Z",
        completionTime: "2024-05-01T10:03:30Z",
        conditions: [{ type: "Complete", status: "True" }],
      }),
    );
    expect((def("Job").tableColumns ?? []).slice(0, 3).map((c) => c.cell?.(done))).toEqual(["Complete", "1/1", "3m30s"]);
    const parallel = mutate(sample("Job"), (o) => setAt(o, "spec.parallelism", 3));
    expect(def("Job").tableColumns?.[1].cell?.(parallel)).toBe("0/1 of 3");
    const cj = (def("CronJob").tableColumns ?? []).slice(0, 5).map((c) => c.cell?.(sample("CronJob")));
    expect(cj).toEqual(["30 2 * * *", "Europe/Berlin", "<unset>", 0, "<none>"]);
  });
});
