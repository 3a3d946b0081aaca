/**
 * Container health probe of the apiserver: `node --import tsx deploy/docker/https-probe.ts [url]`
 * GETs the URL (default https://127.0.0.1:6443/livez) without verifying the serving
 * certificate (the probe runs inside the container, against loopback) and exits 0 on a
 * 200 answer, 1 otherwise (timeout 4 s). Health endpoints are readable anonymously.
 */
import { request } from "node:https";

const url = process.argv[2] ?? "https://127.0.0.1:6443/livez";

const req = request(url, { method: "GET", rejectUnauthorized: false, timeout: 4000 }, (res) => {
  res.resume();
  res.on("end", () => process.exit(res.statusCode === 200 ? 0 : 1));
});
req.on("timeout", () => req.destroy(new Error("timeout")));
req.on("error", (err) => {
  process.stderr.write(`probe ${url}: ${err.message}\n`);
  process.exit(1);
});
req.end();
