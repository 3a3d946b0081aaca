/**
 * The informer-driven controllers, by their real names and aliases, with whether `*`
 * turns them on. The garbage collector and the namespace controller (which keep
 * reflectors of their own) are listed in controllers.ts.
 */
import type { Controller, ControllerContext } from "./context.ts";
import { startBootstrapSigner } from "./bootstrap/signer.ts";
import { startTokenCleaner } from "./bootstrap/cleaner.ts";
import { startCsrApprovingController } from "./certificates/approver.ts";
import { startCsrCleanerController } from "./certificates/cleaner.ts";
import { startCsrSigningController } from "./certificates/signer.ts";
import { startClusterRoleAggregationController } from "./clusterroleaggregation/controller.ts";
import { startDisruptionController } from "./disruption/controller.ts";
import { startNodeLifecycleController } from "./nodelifecycle/controller.ts";
import { startResourceQuotaController } from "./resourcequota/controller.ts";
import { startTaintEvictionController } from "./tainteviction/controller.ts";
import { startRootCaPublisher } from "./rootcacert/publisher.ts";
import { startServiceAccountController } from "./serviceaccount/controller.ts";
import { startLegacyTokenCleaner } from "./serviceaccount/legacy-token-cleaner.ts";
import { startServiceCidrController } from "./servicecidr/controller.ts";

export interface ControllerEntry {
  name: string;
  alias: string;
  enabledByDefault: boolean;
  /** The service account it writes as under --use-service-account-credentials (the platform's). */
  clientName: string;
  start(ctx: ControllerContext): Controller;
}

export const CONTROLLER_TABLE = [
  { name: "serviceaccount-controller", clientName: "service-account-controller", alias: "serviceaccount", enabledByDefault: true, start: startServiceAccountController },
  { name: "root-ca-certificate-publisher-controller", clientName: "root-ca-cert-publisher", alias: "root-ca-cert-publisher", enabledByDefault: true, start: startRootCaPublisher },
  { name: "bootstrap-signer-controller", clientName: "bootstrap-signer", alias: "bootstrapsigner", enabledByDefault: false, start: startBootstrapSigner },
  { name: "token-cleaner-controller", clientName: "token-cleaner", alias: "tokencleaner", enabledByDefault: false, start: startTokenCleaner },
  { name: "certificatesigningrequest-approving-controller", clientName: "certificate-controller", alias: "csrapproving", enabledByDefault: true, start: startCsrApprovingController },
  { name: "certificatesigningrequest-signing-controller", clientName: "certificate-controller", alias: "csrsigning", enabledByDefault: true, start: startCsrSigningController },
  { name: "certificatesigningrequest-cleaner-controller", clientName: "certificate-controller", alias: "csrcleaner", enabledByDefault: true, start: startCsrCleanerController },
  { name: "node-lifecycle-controller", clientName: "node-controller", alias: "nodelifecycle", enabledByDefault: true, start: startNodeLifecycleController },
  { name: "resourcequota-controller", clientName: "resourcequota-controller", alias: "resourcequota", enabledByDefault: true, start: startResourceQuotaController },
  { name: "disruption-controller", clientName: "disruption-controller", alias: "disruption", enabledByDefault: true, start: startDisruptionController },
  { name: "clusterrole-aggregation-controller", clientName: "clusterrole-aggregation-controller", alias: "clusterrole-aggregation", enabledByDefault: true, start: startClusterRoleAggregationController },
  { name: "taint-eviction-controller", alias: "taint-eviction-controller", clientName: "node-controller", enabledByDefault: true, start: startTaintEvictionController },
  { name: "service-cidr-controller", alias: "service-cidr-controller", clientName: "service-cidrs-controller", enabledByDefault: true, start: startServiceCidrController },
  { name: "legacy-serviceaccount-token-cleaner-controller", alias: "legacy-service-account-token-cleaner", clientName: "legacy-service-account-token-cleaner", enabledByDefault: true, start: startLegacyTokenCleaner },
] as const satisfies readonly ControllerEntry[];

export type InformerControllerName = (typeof CONTROLLER_TABLE)[number]["name"];
