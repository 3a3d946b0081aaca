/**
 * The informer-driven controllers, by their real names and aliases, with whether `*`
 * turns them on. The garbage collector and the namespace controller (which keep
 * reflectors of their own) are listed in controllers.ts.
 */
import type { Controller, ControllerContext } from "./context.ts";
import { startServiceAccountController } from "./serviceaccount/controller.ts";

export interface ControllerEntry {
  name: string;
  alias: string;
  enabledByDefault: boolean;
  start(ctx: ControllerContext): Controller;
}

export const CONTROLLER_TABLE = [
  { name: "serviceaccount-controller", alias: "serviceaccount", enabledByDefault: true, start: startServiceAccountController },
] as const satisfies readonly ControllerEntry[];

export type InformerControllerName = (typeof CONTROLLER_TABLE)[number]["name"];
