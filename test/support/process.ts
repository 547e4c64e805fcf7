/** Process helpers of the test fixtures: free loopback ports, starting a logged stand-in, stopping a process group. */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { createServer } from 'node:net';
import { endWithThisProcess } from '../../local-kafka/lifetime.ts';
import type { StandInLog } from './stand-in-log.ts';

/** Ports free on 127.0.0.1 now (all held open together, so they are distinct). */
export async function freePorts(count: number): Promise<number[]> {
  // Hold every server open until all ports are known, so the same port is not handed out twice.
  const servers = await Promise.all(
    Array.from({ length: count }, () => {
      const server = createServer();
      return new Promise<ReturnType<typeof createServer>>((done, fail) => {
        server.once('error', fail);
        server.listen(0, '127.0.0.1', () => done(server));
      });
    }),
  );
  const ports = servers.map((s) => (s.address() as { port: number }).port);
  await Promise.all(servers.map((s) => new Promise((done) => s.close(done))));
  return ports;
}

/** Signals the child's whole process group (fixtures spawn them detached). */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  killGroup(child, 'SIGTERM');
  const timer = setTimeout(() => killGroup(child), 3000);
  await exited;
  clearTimeout(timer);
}

/**
 * Starts a stand-in in its own process group (so stopping it stops its children), its stdout and
 * stderr appended to its log file, and killed if this process exits first, SIGKILL included.
 */
export function spawnLogged(bin: string, args: readonly string[], log: StandInLog): ChildProcess {
  const fd = openSync(log.path, 'a');
  try {
    const child = spawn(bin, args, { detached: true, stdio: ['ignore', fd, fd] });
    const killOnExit = () => killGroup(child);
    process.once('exit', killOnExit);
    child.once('exit', () => process.removeListener('exit', killOnExit));
    // Also when this process is SIGKILLed (the runner's time limit), which runs no exit handler.
    endWithThisProcess(child);
    return child;
  } finally {
    // The child has its own copy of the descriptor.
    closeSync(fd);
  }
}
