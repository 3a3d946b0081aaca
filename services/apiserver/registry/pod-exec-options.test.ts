import { describe, expect, it } from "vitest";
import { agentStreamPath, connectOptions } from "./pod-exec-options.ts";

const q = (s: string) => new URLSearchParams(s);

describe("connect options", () => {
  it.each([
    ["command=sh&command=-c&command=echo%20hi&stdout=true&stderr=1", { kind: "PodExecOptions", apiVersion: "v1", stdin: false, stdout: true, stderr: true, tty: false, command: ["sh", "-c", "echo hi"] }],
    ["command=ls&container=app&stdin=T&tty=true", { kind: "PodExecOptions", stdin: true, tty: true, container: "app", command: ["ls"] }],
  ])("exec %s", (query, expected) => {
    expect(connectOptions("exec", q(query))).toMatchObject(expected);
  });

  it.each([
    ["exec", "command=ls", "you must specify at least 1 of stdin, stdout, stderr"],
    ["attach", "stdout=yes", 'strconv.ParseBool: parsing "yes": invalid syntax'],
    ["portforward", "ports=0", 'invalid port "0": must be between 1 and 65535, inclusive'],
    ["portforward", "ports=http", 'invalid port "http": must be between 1 and 65535, inclusive'],
  ] as const)("%s %s is a 400", (sub, query, message) => {
    expect(() => connectOptions(sub, q(query))).toThrow(expect.objectContaining({ code: 400, message }));
  });

  it("reads attach and port-forward options", () => {
    expect(connectOptions("attach", q("stdin=1&stdout=1"))).toEqual({ kind: "PodAttachOptions", apiVersion: "v1", stdin: true, stdout: true, stderr: false, tty: false });
    expect(connectOptions("portforward", q("ports=8080&ports=9090,53"))).toEqual({ kind: "PodPortForwardOptions", apiVersion: "v1", ports: [8080, 9090, 53] });
    expect(connectOptions("portforward", q(""))).toEqual({ kind: "PodPortForwardOptions", apiVersion: "v1" });
  });

  it.each([
    ["exec", { command: ["sh", "-c", "a b"], stdin: true, stdout: true, stderr: false, tty: false }, "/exec/ns/p%20q/app?command=sh&command=-c&command=a+b&input=1&output=1"],
    ["attach", { stdout: true, tty: true }, "/attach/ns/p%20q/app?output=1&tty=1"],
    ["portforward", { ports: [80, 443] }, "/portForward/ns/p%20q?port=80&port=443"],
  ] as const)("the agent path of %s", (sub, opts, path) => {
    expect(agentStreamPath(sub, "ns", "p q", sub === "portforward" ? undefined : "app", opts)).toBe(path);
  });
});
