import { performance } from 'node:perf_hooks';

export interface Load {
  /** User and system CPU time of the process, in seconds (both cores count). */
  readonly cpuSeconds: number;
  /**
   * Share of the wall time the main thread's event loop was busy, 0 to 1: how close the engine
   * is to saturation (it runs on that thread; GC helpers and I/O threads do not count).
   */
  readonly loopBusy: number;
}

/** Starts measuring; the returned function reads what the process spent since. */
export function measureLoad(): () => Load {
  const cpu = process.cpuUsage();
  const loop = performance.eventLoopUtilization();
  return () => {
    const { user, system } = process.cpuUsage(cpu);
    return {
      cpuSeconds: (user + system) / 1e6,
      loopBusy: performance.eventLoopUtilization(loop).utilization,
    };
  };
}
