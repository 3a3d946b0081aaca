/**
 * The plugin registry: name → factory. Built-in plugins register into one
 * `PluginRegistry` at start-up (plugins/index.ts, `registerBuiltinPlugins`);
 * names are unique. `resolveEnabled` turns the flags into the ordered list of
 * plugin names to construct (order.ts), failing on unknown names.
 */
import type { PluginFactory } from "./interfaces.ts";
import { ALL_ORDERED_PLUGINS, DEFAULT_ON_PLUGINS } from "./order.ts";

export class PluginRegistry {
  private readonly factories = new Map<string, PluginFactory>();

  /** Registering the same factory twice is a no-op; another factory under a taken name throws. */
  register(name: string, factory: PluginFactory): void {
    if (this.factories.get(name) === factory) return;
    if (this.factories.has(name)) throw new Error(`admission plugin ${JSON.stringify(name)} registered twice`);
    this.factories.set(name, factory);
  }

  has(name: string): boolean {
    return this.factories.has(name);
  }

  factory(name: string): PluginFactory | undefined {
    return this.factories.get(name);
  }

  /** Registered names in the recommended order (unordered extras last, by name). */
  names(): string[] {
    const ordered = ALL_ORDERED_PLUGINS.filter((n) => this.factories.has(n));
    const extra = [...this.factories.keys()].filter((n) => !ALL_ORDERED_PLUGINS.includes(n)).sort();
    return [...ordered, ...extra];
  }
}

export interface AdmissionFlags {
  /** `--enable-admission-plugins` (added to the default-on set). */
  enable: string[];
  /** `--disable-admission-plugins` (removed from the default-on set). */
  disable: string[];
  /** `--admission-control-config-file`. */
  configFile?: string;
}

/**
 * The enabled plugin names in execution order: default-on ∪ enable − disable.
 * Unknown or overlapping names throw an Error with the real server's wording.
 */
export function resolveEnabled(registry: PluginRegistry, flags: AdmissionFlags): string[] {
  const errors: string[] = [];
  const unknown = (list: string[]) => [...new Set(list)].filter((n) => !registry.has(n)).sort();
  const badEnable = unknown(flags.enable);
  if (badEnable.length > 0) errors.push(`enable-admission-plugins plugin ${JSON.stringify(badEnable.join(","))} is unknown`);
  const badDisable = unknown(flags.disable);
  if (badDisable.length > 0) errors.push(`disable-admission-plugins plugin ${JSON.stringify(badDisable.join(","))} is unknown`);
  const overlap = flags.enable.filter((n) => flags.disable.includes(n));
  if (overlap.length > 0) errors.push(`${JSON.stringify([...new Set(overlap)].sort())} in enable-admission-plugins and disable-admission-plugins overlapped`);
  if (errors.length > 0) throw new Error(errors.join("; "));
  const enabled = new Set([...DEFAULT_ON_PLUGINS].filter((n) => registry.has(n)));
  for (const n of flags.enable) enabled.add(n);
  for (const n of flags.disable) enabled.delete(n);
  return registry.names().filter((n) => enabled.has(n));
}
