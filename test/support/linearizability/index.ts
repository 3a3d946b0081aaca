/** Linearizability checking of concurrent histories (see checker.ts, kv-model.ts). */
export { checkLinearizable, describeResult, partitionHistory, type CheckOptions, type CheckResult, type PartitionResult } from "./checker.ts";
export { cutAt, isPending, type Operation } from "./history.ts";
export { kvModel, type KvInput, type KvOutput, type KvState } from "./kv-model.ts";
export type { Model } from "./model.ts";
