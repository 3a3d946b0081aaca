#!/usr/bin/env node
// The `plat` executable: loads the TypeScript sources through tsx and runs the command line.
import process from "node:process";
import { register } from "tsx/esm/api";

register();
const { runCli } = await import("../main.ts");
process.exitCode = await runCli(process.argv.slice(2));
