/**
 * The platform's format library: `format.<name>()` for each named format,
 * `format.named(<string>) optional<kubernetes.NamedFormat>` and
 * `<kubernetes.NamedFormat>.validate(<string>) optional<list<string>>` (none
 * when the text is valid, else the platform's messages). Name checks are
 * shared/schema's; the `…Prefix` formats validate a generateName prefix.
 */
import { Optional, type Environment } from "@marcbachmann/cel-js";
import { byteLength, isBase64, isDate, isDateTime, isDNS1123Label, isDNS1123Subdomain, isLabelValue, isQualifiedName, maxLenError, regexError } from "../../schema/formats.ts";
import { parseURL } from "./url.ts";

export const FORMAT_TYPE = "kubernetes.NamedFormat";

export class NamedFormat {
  constructor(
    readonly name: string,
    readonly check: (s: string) => string[],
  ) {}

  toString(): string {
    return this.name;
  }
}

const DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1035_LABEL_MSG = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const dns1035Re = new RegExp(`^${DNS1035_LABEL_FMT}$`);

function isDNS1035Label(s: string): string[] {
  const errs: string[] = [];
  if (byteLength(s) > 63) errs.push(maxLenError(63));
  if (!dns1035Re.test(s)) errs.push(regexError(DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, "my-name", "abc-123"));
  return errs;
}

/** A generateName may end with `-`: validate it as if a random suffix followed. */
const asPrefix = (check: (s: string) => string[]) => (s: string) => check(s.length > 1 && s.endsWith("-") ? `${s.slice(0, -1)}a` : s);

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

function uri(s: string): string[] {
  try {
    parseURL(s);
    return [];
  } catch (err) {
    const detail = err instanceof Error ? err.message.replace(/^URL parse error during conversion from string: /, "") : "invalid URI";
    return [`parse ${JSON.stringify(s)}: ${detail}`];
  }
}

/** The named formats, by the name used in `format.<name>()` and `format.named(name)`. */
export const NAMED_FORMATS: ReadonlyMap<string, NamedFormat> = new Map(
  (
    [
      ["dns1123Label", "DNS1123Label", isDNS1123Label],
      ["dns1123Subdomain", "DNS1123Subdomain", isDNS1123Subdomain],
      ["dns1035Label", "DNS1035Label", isDNS1035Label],
      ["qualifiedName", "QualifiedName", isQualifiedName],
      ["dns1123LabelPrefix", "DNS1123LabelPrefix", asPrefix(isDNS1123Label)],
      ["dns1123SubdomainPrefix", "DNS1123SubdomainPrefix", asPrefix(isDNS1123Subdomain)],
      ["dns1035LabelPrefix", "DNS1035LabelPrefix", asPrefix(isDNS1035Label)],
      ["labelValue", "LabelValue", isLabelValue],
      ["uri", "URI", uri],
      ["uuid", "uuid", (s: string) => (UUID.test(s) ? [] : ["does not match the UUID format"])],
      ["byte", "byte", (s: string) => (isBase64(s) ? [] : ["invalid base64"])],
      ["date", "date", (s: string) => (isDate(s) ? [] : ["invalid date"])],
      ["datetime", "datetime", (s: string) => (isDateTime(s) ? [] : ["invalid datetime"])],
    ] as const
  ).map(([key, name, check]) => [key, new NamedFormat(name, check)]),
);

class FormatNamespace {}

/** Registers `format` and kubernetes.NamedFormat. */
export function registerFormat(env: Environment): Environment {
  const F = FORMAT_TYPE;
  let out = env
    .registerType(F, NamedFormat)
    .registerType("kubernetes.FormatNamespace", FormatNamespace)
    .registerConstant("format", "kubernetes.FormatNamespace", new FormatNamespace())
    .registerFunction(`kubernetes.FormatNamespace.named(string): optional<${F}>`, (_ns: FormatNamespace, name: string) => {
      const f = NAMED_FORMATS.get(name);
      return f ? Optional.of(f) : Optional.none();
    })
    .registerFunction(`${F}.validate(string): optional<list<string>>`, (f: NamedFormat, s: string) => {
      const errs = f.check(s);
      return errs.length === 0 ? Optional.none() : Optional.of(errs);
    });
  for (const [key, f] of NAMED_FORMATS) out = out.registerFunction(`kubernetes.FormatNamespace.${key}(): ${F}`, () => f);
  return out;
}
