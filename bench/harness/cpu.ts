/** User and system CPU time of this process since `start`, in seconds (both cores count). */
export function cpuSecondsSince(start: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1e6;
}
