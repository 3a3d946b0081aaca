import { describe, expect, it } from "vitest";
import { ArgsError, parseArgs, type FlagDef } from "./args.ts";

const DEFS: FlagDef[] = [
  { name: "namespace", short: "n", kind: "string", help: "" },
  { name: "output", short: "o", kind: "string", help: "" },
  { name: "all-namespaces", short: "A", kind: "bool", default: false, help: "" },
  { name: "watch", short: "w", kind: "bool", default: false, help: "" },
  { name: "filename", short: "f", kind: "array", help: "" },
  { name: "verbs", kind: "list", help: "" },
];

describe("parseArgs", () => {
  const table: Array<[string, string[], Record<string, unknown>, string[]]> = [
    ["long with space", ["get", "--namespace", "x", "cm"], { namespace: "x" }, ["get", "cm"]],
    ["long with =", ["--namespace=x"], { namespace: "x" }, []],
    ["short with space", ["-n", "x"], { namespace: "x" }, []],
    ["short attached", ["-nx", "-ojson"], { namespace: "x", output: "json" }, []],
    ["short with =", ["-o=yaml"], { output: "yaml" }, []],
    ["grouped booleans", ["-Aw"], { "all-namespaces": true, watch: true }, []],
    ["boolean =false", ["--watch=false", "-A=false"], { watch: false, "all-namespaces": false }, []],
    ["array repeats", ["-f", "a", "-f", "b,c"], { filename: ["a", "b,c"] }, []],
    ["list splits", ["--verbs", "get,list", "--verbs=watch"], { verbs: ["get", "list", "watch"] }, []],
    ["dash is an argument", ["-f", "-", "x"], { filename: ["-"] }, ["x"]],
    ["-- ends flags", ["--", "-n", "x"], {}, ["-n", "x"]],
    ["value that looks like a flag", ["-o", "jsonpath={.a}", "--namespace", "-x"], { output: "jsonpath={.a}", namespace: "-x" }, []],
  ];
  it.each(table)("%s", (_name, argv, values, positionals) => {
    const r = parseArgs(argv, DEFS);
    for (const [k, v] of Object.entries(values)) expect(r.values.get(k), k).toEqual(v);
    expect(r.positionals).toEqual(positionals);
  });

  const bad: Array<[string[], string]> = [
    [["--bogus"], "unknown flag: --bogus"],
    [["-z"], "unknown shorthand flag: 'z' in -z"],
    [["--namespace"], "flag needs an argument: --namespace"],
    [["-n"], "flag needs an argument: 'n' in -n"],
    [["--watch=maybe"], 'invalid argument "maybe" for "--watch" flag: strconv.ParseBool: parsing "maybe": invalid syntax'],
  ];
  it.each(bad)("refuses %j", (argv, message) => {
    expect(() => parseArgs(argv, DEFS)).toThrow(new ArgsError(message));
  });

  it("defaults and changed flags", () => {
    const r = parseArgs(["-w"], DEFS);
    expect(r.values.get("all-namespaces")).toBe(false);
    expect([...r.changed]).toEqual(["watch"]);
  });
});
