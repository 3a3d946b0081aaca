/**
 * The informer-driven controllers, by their real names and aliases, with whether `*`
 * turns them on. The garbage collector and the namespace controller (which keep
 * reflectors of their own) are listed in controllers.ts.
 */
import type { Controller, ControllerContext } from "./context.ts";
import { startCsrApprovingController } from "./certificates/approver.ts";
import { startCsrCleanerController } from "./certificates/cleaner.ts";
import { startCsrSigningController } from "./certificates/signer.ts";
import { startServiceAccountController } from "./serviceaccount/controller.ts";

export interface ControllerEntry {
  name: string;
  alias: string;
  enabledByDefault: boolean;
  start(ctx: ControllerContext): Controller;
}

export const CONTROLLER_TABLE = [
  { name: "serviceaccount-controller", alias: "serviceaccount", enabledByDefault: true, start: startServiceAccountController },
  { name: "certificatesigningrequest-approving-controller", alias: "csrapproving", enabledByDefault: true, start: startCsrApprovingController },
  { name: "certificatesigningrequest-signing-controller", alias: "csrsigning", enabledByDefault: true, start: startCsrSigningController },
  { name: "certificatesigningrequest-cleaner-controller", alias: "csrcleaner", enabledByDefault: true, start: startCsrCleanerController },
] as const satisfies readonly ControllerEntry[];

export type InformerControllerName = (typeof CONTROLLER_TABLE)[number]["name"];
