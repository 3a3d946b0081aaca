// Public surface of the Raft core.
export * from "./types.ts";
export * from "./errors.ts";
export type { RaftStorage, InitialState } from "./storage.ts";
export { MemoryStorage } from "./storage.ts";
export type { Config } from "./raft.ts";
export type { Ready, Status, ProgressStatus } from "./rawnode.ts";
export { RawNode } from "./rawnode.ts";
export { encodeConfChange, decodeConfChange } from "./confchange.ts";
export type { RandomSource } from "./rand.ts";
export { SeededRandom } from "./rand.ts";
export type { RetirementReason } from "./retirement.ts";
export { Retirement, defaultQuietTimeouts } from "./retirement.ts";
