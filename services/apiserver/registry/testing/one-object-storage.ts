/**
 * A storage of one object under any key, enough for a registry's create and update in
 * unit tests: every write stores a copy with the next resourceVersion and answers
 * another copy, so the registry never shares an object with what is stored.
 */
import type { ObjectStorage, TryUpdate } from "../../storage/interface.ts";
import { meta, type JsonObject } from "../../storage/object.ts";

export class OneObjectStorage {
  stored: JsonObject | undefined;
  private revision = 1;

  private keep(obj: JsonObject): JsonObject {
    this.stored = structuredClone(obj);
    meta(this.stored).resourceVersion = String(++this.revision);
    return structuredClone(this.stored);
  }

  create(_key: string, obj: JsonObject): Promise<JsonObject> {
    return Promise.resolve(this.keep(obj));
  }

  async guaranteedUpdate(_key: string, tryUpdate: TryUpdate): Promise<JsonObject> {
    const next = await tryUpdate(this.stored && structuredClone(this.stored));
    return next === undefined ? structuredClone(this.stored!) : this.keep(next);
  }

  /** This storage as the registry's storage type (it serves only create and update). */
  asObjectStorage(): ObjectStorage {
    return this as unknown as ObjectStorage;
  }
}
