/** resourceVersion parsing: the string form of a store revision. */

export class InvalidResourceVersionError extends Error {
  constructor(readonly value: string) {
    super(`invalid resource version: "${value}"`);
  }
}

/** "" → undefined; "0" → 0; decimal revision → number; anything else throws. */
export function parseResourceVersion(value: string | undefined): number | undefined {
  if (value === undefined || value === "") return undefined;
  if (!/^(0|[1-9][0-9]{0,15})$/.test(value)) throw new InvalidResourceVersionError(value);
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new InvalidResourceVersionError(value);
  return n;
}
