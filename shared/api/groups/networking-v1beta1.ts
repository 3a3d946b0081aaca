/**
 * networking/v1beta1 (beta since 1.31): IPAddress and ServiceCIDR with the fields of
 * networking/v1, where they went GA in 1.33. A beta introduced after 1.22, so off unless
 * `--runtime-config` enables it; deprecated in 1.34, unavailable in 1.37 (the platform's
 * default lifecycle of a beta). Objects are stored as networking/v1.
 */
import type { KindDefinition } from "../../schema/types.ts";
import { kinds as networkingV1 } from "./networking-v1.ts";
import { atVersion } from "./pre-release-version.ts";

export const kinds: KindDefinition[] = networkingV1.filter((k) => k.kind === "IPAddress" || k.kind === "ServiceCIDR").map((k) => atVersion(k, "v1beta1"));
