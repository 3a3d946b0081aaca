/** Runs this process's command line through the `plat` CLI (the entry of the bin and of bundles). */
import process from "node:process";
import { runCli } from "./main.ts";

process.exitCode = await runCli(process.argv.slice(2));
