/**
 * Feature gates with the platform's stages: alpha gates are off by default, beta
 * gates on, GA gates on and locked (setting them to false fails). `--feature-gates`
 * takes `Name=true|false` pairs; an unknown name is an error.
 */

export type GateStage = "ALPHA" | "BETA" | "GA";

export interface GateSpec {
  stage: GateStage;
  default: boolean;
  /** GA gates cannot be turned off any more. */
  lockToDefault?: boolean;
}

export const KNOWN_GATES: Readonly<Record<string, GateSpec>> = {
  APIResponseCompression: { stage: "BETA", default: true },
  CBORServingAndStorage: { stage: "ALPHA", default: false },
  AuthorizeWithSelectors: { stage: "GA", default: true, lockToDefault: true },
  StructuredAuthenticationConfiguration: { stage: "BETA", default: true },
  StructuredAuthenticationConfigurationEgressSelector: { stage: "BETA", default: true },
  ListFromCacheSnapshot: { stage: "BETA", default: true },
  AllowUnsafeMalformedObjectDeletion: { stage: "ALPHA", default: false },
  ContainerCheckpoint: { stage: "BETA", default: true },
  DeclarativeValidation: { stage: "BETA", default: true },
  DeclarativeValidationTakeover: { stage: "BETA", default: false },
  MutatingAdmissionPolicy: { stage: "BETA", default: false },
  ConsistentListFromCache: { stage: "GA", default: true, lockToDefault: true },
  WatchList: { stage: "BETA", default: true },
};

export class FeatureGates {
  private readonly values = new Map<string, boolean>();

  constructor(private readonly known: Readonly<Record<string, GateSpec>> = KNOWN_GATES) {
    for (const [name, spec] of Object.entries(known)) this.values.set(name, spec.default);
  }

  /** Applies `Name=bool` pairs; throws with the platform's wording on unknown or locked gates. */
  set(pairs: readonly string[]): void {
    for (const pair of pairs) {
      const eq = pair.indexOf("=");
      if (eq <= 0) throw new Error(`missing bool value for ${pair}`);
      const name = pair.slice(0, eq).trim();
      const raw = pair.slice(eq + 1).trim().toLowerCase();
      if (raw !== "true" && raw !== "false") throw new Error(`invalid value of ${name}=${raw}, err: strconv.ParseBool: parsing "${raw}": invalid syntax`);
      const spec = this.known[name];
      if (!spec) throw new Error(`unrecognized feature gate: ${name}`);
      const value = raw === "true";
      if (spec.lockToDefault && value !== spec.default) throw new Error(`cannot set feature gate ${name} to ${value}, feature is locked to ${spec.default}`);
      this.values.set(name, value);
    }
  }

  enabled(name: string): boolean {
    return this.values.get(name) ?? false;
  }
}
