/**
 * Reading the file flags of one TLS side (a CA bundle, a certificate and its key)
 * from parsed flags: empty means unset, and a certificate without its key (or the
 * reverse) is a FlagError naming both flags.
 */
import { FlagError, type FlagValues } from "../cli/flags.ts";
import type { TlsFilePaths } from "./watched-files.ts";

export interface TlsFileFlagNames {
  ca: string;
  cert: string;
  key: string;
}

function fileFlag(flags: FlagValues, name: string): string | undefined {
  const v = flags[name];
  return v === undefined || v === "" ? undefined : String(v);
}

export function tlsFilesFrom(flags: FlagValues, names: TlsFileFlagNames): TlsFilePaths {
  const files = { caFile: fileFlag(flags, names.ca), certFile: fileFlag(flags, names.cert), keyFile: fileFlag(flags, names.key) };
  if ((files.certFile === undefined) !== (files.keyFile === undefined)) throw new FlagError(`--${names.cert} and --${names.key} must be given together`);
  return files;
}
