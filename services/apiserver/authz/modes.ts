/**
 * One factory per authorization mode (`--authorization-mode` and the types of an
 * AuthorizationConfiguration file). RBAC and Node state is watch-fed and created once,
 * on first use, then shared by every chain built from the same `ModeState` (a reload
 * of the configuration file keeps it); `close()` stops what was started.
 */
import { resolve } from "node:path";
import type { LogFn } from "../../../shared/observability/logger.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { Catalog } from "../registry/catalog.ts";
import { AbacAuthorizer } from "./abac.ts";
import { AlwaysAllowAuthorizer, AlwaysDenyAuthorizer } from "./always.ts";
import { NodeGraphWatcher, type NodeGraph } from "./node-graph.ts";
import { NodeAuthorizer } from "./node.ts";
import type { AuthorizationFlags, AuthorizationMode, AuthorizerConfig } from "./options.ts";
import { RbacAuthorizer } from "./rbac/authorizer.ts";
import type { RbacSource } from "./rbac/resolve.ts";
import { RegistryRbacSource } from "./rbac/source.ts";
import type { Authorizer } from "./types.ts";
import { loadWebhookClientConfig, WebhookAuthorizer } from "./webhook.ts";

export interface ModeDeps {
  profile: PlatformProfile;
  /** The replica's catalog: RBAC and Node state is watched through it. */
  catalog?: Catalog;
  /** An RBAC source to use instead of watching the catalog. */
  rbacSource?: RbacSource;
  /** A node graph to use instead of watching the catalog. */
  nodeGraph?: NodeGraph;
  now?: () => number;
  log: LogFn;
}

/** The RBAC and Node authorizers shared across the chains of one replica. */
export class ModeState {
  private rbacAuthorizer: RbacAuthorizer | undefined;
  private nodeAuthorizer: NodeAuthorizer | undefined;
  private source: RbacSource | undefined;
  private readonly stops: Array<() => void> = [];

  constructor(readonly deps: ModeDeps) {
    this.source = deps.rbacSource;
  }

  get rbacSource(): RbacSource | undefined {
    return this.source;
  }

  get rbac(): RbacAuthorizer | undefined {
    return this.rbacAuthorizer;
  }

  async rbacMode(): Promise<RbacAuthorizer> {
    if (this.rbacAuthorizer) return this.rbacAuthorizer;
    if (!this.source) {
      if (!this.deps.catalog) throw new Error("RBAC authorization needs the replica's catalog");
      const src = new RegistryRbacSource(this.deps.catalog, this.deps.profile, (msg, fields) => this.deps.log("warn", msg, fields));
      await src.start();
      this.stops.push(() => src.stop());
      this.source = src;
    }
    this.rbacAuthorizer = new RbacAuthorizer(this.source);
    return this.rbacAuthorizer;
  }

  async nodeMode(): Promise<NodeAuthorizer> {
    if (this.nodeAuthorizer) return this.nodeAuthorizer;
    let graph = this.deps.nodeGraph;
    if (!graph) {
      if (!this.deps.catalog) throw new Error("Node authorization needs the replica's catalog");
      const w = new NodeGraphWatcher(this.deps.catalog, this.deps.profile, (msg, fields) => this.deps.log("warn", msg, fields));
      await w.start();
      this.stops.push(() => w.stop());
      graph = w.graph;
    }
    this.nodeAuthorizer = new NodeAuthorizer(graph, this.deps.profile);
    return this.nodeAuthorizer;
  }

  close(): void {
    for (const s of this.stops.splice(0).reverse()) s();
  }
}

type FlagModeFactory = (state: ModeState, flags: AuthorizationFlags) => Authorizer | Promise<Authorizer>;

/** `--authorization-mode` values and the authorizer each one adds to the chain. */
export const FLAG_MODE_FACTORIES: Record<AuthorizationMode, FlagModeFactory> = {
  AlwaysAllow: () => new AlwaysAllowAuthorizer(),
  AlwaysDeny: () => new AlwaysDenyAuthorizer(),
  ABAC: (state, flags) => AbacAuthorizer.fromFile(flags.policyFile ?? "", state.deps.profile),
  RBAC: (state) => state.rbacMode(),
  Node: (state) => state.nodeMode(),
  Webhook: (state, flags) =>
    new WebhookAuthorizer({
      name: "webhook",
      profile: state.deps.profile,
      client: loadWebhookClientConfig(flags.webhookConfigFile ?? ""),
      version: flags.webhookVersion ?? "v1beta1",
      authorizedTTLMs: flags.webhookAuthorizedTTLMs,
      unauthorizedTTLMs: flags.webhookUnauthorizedTTLMs,
      failurePolicy: "NoOpinion",
      now: state.deps.now,
    }),
};

/** The authorizers the mode flags list, in order (default AlwaysAllow). */
export async function authorizersFromFlags(state: ModeState, flags: AuthorizationFlags): Promise<Authorizer[]> {
  const out: Authorizer[] = [];
  for (const mode of flags.modes ?? ["AlwaysAllow"]) out.push(await FLAG_MODE_FACTORIES[mode](state, flags));
  return out;
}

/** The authorizer of one entry of an AuthorizationConfiguration file; relative paths resolve against the file's directory. */
export async function authorizerFromConfig(state: ModeState, a: AuthorizerConfig, baseDir: string): Promise<Authorizer> {
  switch (a.type) {
    case "AlwaysAllow":
      return new AlwaysAllowAuthorizer();
    case "AlwaysDeny":
      return new AlwaysDenyAuthorizer();
    case "RBAC":
      return state.rbacMode();
    case "Node":
      return state.nodeMode();
    case "Webhook": {
      const w = a.webhook;
      if (!w) throw new Error(`authorizer ${a.name}: missing webhook configuration`);
      if (w.connectionInfo.type !== "KubeConfigFile") throw new Error(`authorizer ${a.name}: connectionInfo.type InClusterConfig is not supported by this server`);
      return new WebhookAuthorizer({
        name: a.name,
        profile: state.deps.profile,
        client: loadWebhookClientConfig(resolve(baseDir, w.connectionInfo.kubeConfigFile)),
        version: w.subjectAccessReviewVersion,
        authorizedTTLMs: w.authorizedTTLMs,
        unauthorizedTTLMs: w.unauthorizedTTLMs,
        timeoutMs: w.timeoutMs,
        failurePolicy: w.failurePolicy,
        matchConditions: w.matchConditions,
        now: state.deps.now,
      });
    }
  }
}
