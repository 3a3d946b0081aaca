// Child process of the crash test: appends entries with several concurrent
// writers and prints "<index>\n" for every entry once its save has resolved
// (that is, once it is durable). The parent SIGKILLs it at an arbitrary moment.
//
// usage: crash-writer.ts <dir> <writers> [preallocateBytes]
import { Wal } from "../wal.ts";
import type { Entry } from "../types.ts";

/** Deterministic payload of entry `index` (the parent recomputes it). */
export function payloadFor(index: number): Uint8Array {
  const len = 1 + ((index * 7919) % 20_000);
  const out = new Uint8Array(len);
  for (let i = 0; i < len; i++) out[i] = (index * 31 + i) & 0xff;
  return out;
}

async function main(): Promise<void> {
  const [dir, writersArg, preallocateArg] = process.argv.slice(2);
  const { wal, state } = await Wal.open(dir, {
    segmentBytes: 64 * 1024,
    preallocateBytes: Number(preallocateArg ?? 0),
    log: (level, msg, fields) => process.stderr.write(`${level} ${msg} ${JSON.stringify(fields)}\n`),
  });
  let next = (state.entries.at(-1)?.index ?? 0) + 1;
  const writer = async (): Promise<void> => {
    for (;;) {
      const index = next++;
      const e: Entry = { index, term: 1, type: 0, data: payloadFor(index) };
      await wal.save({ term: 1, vote: 1, commit: index }, [e]);
      process.stdout.write(`${index}\n`);
    }
  };
  await Promise.all(Array.from({ length: Number(writersArg) }, writer));
}

if (process.argv[1]?.endsWith("crash-writer.ts")) {
  main().catch((err: unknown) => {
    process.stderr.write(`crash-writer failed: ${String(err)}\n`);
    process.exit(1);
  });
}
