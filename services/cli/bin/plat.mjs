#!/usr/bin/env node
// The `plat` executable: loads the TypeScript sources through tsx and runs the command line.
import { register } from "tsx/esm/api";

register();
await import("../run.ts");
