/**
 * A kind served in an alpha or beta group version whose fields are those of the
 * version it graduated to (or from): the same definition under another version.
 * Its nested types keep the names of the version they are declared in.
 */
import type { KindDefinition } from "../../schema/types.ts";

export function atVersion(def: KindDefinition, version: string): KindDefinition {
  return { ...def, version };
}
