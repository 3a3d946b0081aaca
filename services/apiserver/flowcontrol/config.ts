/**
 * The configuration half of API Priority and Fairness in one replica:
 * `createFlowControlConfig(deps)` gives the dispatch half its
 * `FlowControlConfigSource` and `Classifier` (contract.ts), and keeps the
 * bootstrap objects (bootstrap-ensurer.ts) and the FlowSchemas' Dangling
 * condition (dangling-status.ts). `start()` resolves once both kinds are listed
 * and the bootstrap objects were ensured once. When --runtime-config turns the
 * group off, the source serves the mandatory objects alone and nothing is written.
 */
import type { LogFn } from "../../../shared/observability/logger.ts";
import type { Catalog } from "../registry/catalog.ts";
import { BootstrapEnsurer } from "./bootstrap-ensurer.ts";
import { classifierOf } from "./classifier.ts";
import { InformerConfigSource } from "./config-source.ts";
import type { Classifier, FlowControlConfigSource } from "./contract.ts";
import { DanglingStatusWriter } from "./dangling-status.ts";

export interface FlowControlConfigDeps {
  catalog: Catalog;
  log?: LogFn;
  /** How often the bootstrap objects are checked besides on change (default one minute). */
  ensureIntervalMs?: number;
}

export interface FlowControlConfigHandle {
  source: FlowControlConfigSource;
  classify: Classifier;
  start(): Promise<void>;
  stop(): void;
}

export function createFlowControlConfig(deps: FlowControlConfigDeps): FlowControlConfigHandle {
  const { catalog, log } = deps;
  const group = catalog.profile.group("flowcontrol");
  const flowSchemas = catalog.lookup(group, "v1", "flowschemas")?.registry;
  const priorityLevels = catalog.lookup(group, "v1", "prioritylevelconfigurations")?.registry;
  const source = new InformerConfigSource({ flowSchemas, priorityLevels }, (msg, fields) => log?.("warn", msg, fields));
  const ensurer = flowSchemas && priorityLevels ? new BootstrapEnsurer(catalog.profile, source, { flowSchemas, priorityLevels }, log, deps.ensureIntervalMs) : undefined;
  const status = flowSchemas ? new DanglingStatusWriter(source, flowSchemas, log) : undefined;
  return {
    source,
    classify: classifierOf(source),
    async start() {
      await source.start();
      await ensurer?.start();
      status?.start();
    },
    stop() {
      ensurer?.stop();
      status?.stop();
      source.stop();
    },
  };
}
