/**
 * CPU time of one synchronous call, in milliseconds: the bound of a fuzzed decoder's
 * work per case. CPU time (user + system of this process) rather than wall time, so
 * a case is not blamed for the time the shared machine gave to other processes.
 */
export function cpuMs(fn: () => void): number {
  const before = process.cpuUsage();
  fn();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}
