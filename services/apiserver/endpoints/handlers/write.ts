/** POST (create) and PUT (update, or create where the kind allows it). */
import { badRequest } from "../../../../shared/api/status.ts";
import { meta } from "../../storage/object.ts";
import { respond } from "../encode.ts";
import { writeContext, type RequestScope } from "../scope.ts";
import { parseDryRun } from "../write-options.ts";
import { readObject } from "./decode-object.ts";
import { recordWrite } from "../field-manager.ts";
import { withTypeMeta } from "./read.ts";

export async function handleCreate(s: RequestScope): Promise<Response> {
  const dryRun = parseDryRun(s.query);
  const obj = await readObject(s);
  if (s.name) throw badRequest("create is not allowed on a named resource; use PUT");
  const created = await s.registry.create(recordWrite(s, undefined, obj), writeContext(s, dryRun));
  return respond(s, withTypeMeta(created, s), 201, "object");
}

export async function handleUpdate(s: RequestScope): Promise<Response> {
  const dryRun = parseDryRun(s.query);
  const obj = await readObject(s);
  const name = s.name as string;
  const bodyName = meta(obj).name;
  if (bodyName !== undefined && bodyName !== name) {
    throw badRequest(`the name of the object (${bodyName}) does not match the name on the URL (${name})`);
  }
  const createsOnUpdate = s.registry.strategy.allowCreateOnUpdate;
  const { object, created } = await s.registry.update(
    s.namespace,
    name,
    async (current) => {
      return recordWrite(s, current, obj);
    },
    writeContext(s, dryRun, createsOnUpdate ? s.authorizeCreate : undefined),
  );
  return respond(s, withTypeMeta(object, s), created ? 201 : 200, "object");
}
