/** System-owned metadata: uid, timestamps, generated names. */
import { randomBytes, randomUUID } from "node:crypto";

/** RFC 3339 with second precision, as the platform serializes `metav1.Time`. */
export function timestamp(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

/** RFC 3339 with microseconds (`metav1.MicroTime`). */
export function microTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

export function newUid(): string {
  return randomUUID();
}

/** Alphabet without vowels and look-alike characters, as the platform uses for generated names. */
const ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789";
const RANDOM_LENGTH = 5;
const MAX_NAME_LENGTH = 63;

/** `generateName` + 5 random characters, the prefix cut so the name fits 63 characters. */
export function generateName(base: string): string {
  const prefix = base.length > MAX_NAME_LENGTH - RANDOM_LENGTH ? base.slice(0, MAX_NAME_LENGTH - RANDOM_LENGTH) : base;
  const bytes = randomBytes(RANDOM_LENGTH);
  let suffix = "";
  for (const b of bytes) suffix += ALPHANUMS[b % ALPHANUMS.length];
  return prefix + suffix;
}
