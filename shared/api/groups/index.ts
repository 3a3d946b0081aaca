/**
 * Every built-in kind served by the apiserver, for one naming profile. Groups whose
 * schemas need profile names (core, rbac, apiextensions) are built per profile.
 */
import type { PlatformProfile } from "../../platform/index.ts";
import type { KindDefinition } from "../../schema/types.ts";
import { kinds as admissionregistrationV1 } from "./admissionregistration-v1.ts";
import { makeKinds as apiextensionsV1 } from "./apiextensions-v1.ts";
import { kinds as apiregistrationV1 } from "./apiregistration-v1.ts";
import { kinds as appsV1 } from "./apps-v1.ts";
import { kinds as authenticationV1 } from "./authentication-v1.ts";
import { kinds as authorizationV1 } from "./authorization-v1.ts";
import { kinds as autoscalingV1 } from "./autoscaling-v1.ts";
import { kinds as autoscalingV2 } from "./autoscaling-v2.ts";
import { kinds as batchV1 } from "./batch-v1.ts";
import { kinds as certificatesV1 } from "./certificates-v1.ts";
import { kinds as coordinationV1 } from "./coordination-v1.ts";
import { coreV1Kinds } from "./core-v1.ts";
import { componentStatusKind } from "./core-v1-componentstatus.ts";
import { kinds as discoveryV1 } from "./discovery-v1.ts";
import { kinds as eventsV1 } from "./events-v1.ts";
import { kinds as flowcontrolV1 } from "./flowcontrol-v1.ts";
import { kinds as networkingV1 } from "./networking-v1.ts";
import { kinds as nodeV1 } from "./node-v1.ts";
import { kinds as policyV1 } from "./policy-v1.ts";
import { makeKinds as rbacV1 } from "./rbac-v1.ts";
import { kinds as schedulingV1 } from "./scheduling-v1.ts";
import { kinds as storageV1 } from "./storage-v1.ts";

export function builtinKinds(profile: PlatformProfile): KindDefinition[] {
  return [
    ...coreV1Kinds(profile),
    componentStatusKind,
    ...appsV1,
    ...batchV1,
    ...autoscalingV1,
    ...autoscalingV2,
    ...policyV1,
    ...coordinationV1,
    ...eventsV1,
    ...rbacV1(profile),
    ...networkingV1,
    ...discoveryV1,
    ...storageV1,
    ...schedulingV1,
    ...nodeV1,
    ...certificatesV1,
    ...authenticationV1,
    ...authorizationV1,
    ...admissionregistrationV1,
    ...apiextensionsV1(profile),
    ...apiregistrationV1,
    ...flowcontrolV1,
  ];
}
