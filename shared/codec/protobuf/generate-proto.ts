/**
 * Writes the .proto files of the built-in kinds (default profile) to
 * shared/proto/api/. Run: `npx tsx shared/codec/protobuf/generate-proto.ts`.
 * A test checks that the committed files equal the generator's output.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { builtinKinds } from "../../api/groups/index.ts";
import { getProfile } from "../../platform/index.ts";
import { PROTO_ROOT } from "../../proto/index.ts";
import { generateProtoFiles } from "./proto-text.ts";

export const API_PROTO_DIR = join(PROTO_ROOT, "api");

export function expectedProtoFiles(): Map<string, string> {
  const profile = getProfile();
  return generateProtoFiles(builtinKinds(profile), profile);
}

function main(): void {
  const files = expectedProtoFiles();
  mkdirSync(API_PROTO_DIR, { recursive: true });
  for (const name of readdirSync(API_PROTO_DIR)) if (name.endsWith(".proto")) rmSync(join(API_PROTO_DIR, name));
  for (const [rel, text] of files) {
    const path = join(PROTO_ROOT, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  process.stdout.write(`wrote ${files.size} files to ${API_PROTO_DIR}\n`);
}

if (process.argv[1] && import.meta.filename === process.argv[1]) main();
