/**
 * Ties a child process group's life to this process, SIGKILL of this process included: an exit
 * handler does not run on SIGKILL (a test file killed at its time limit, a `streamfold kafka` killed
 * by its terminal or an OOM killer), and a detached JVM would then run on, holding its ports,
 * memory and a CPU of a two-core machine.
 *
 * How: a watcher (`sh`, a few hundred kB) in a process group of its own reads a pipe whose only
 * writer is this process. The kernel closes that pipe when this process dies, however it dies;
 * the watcher then reads end-of-file and SIGKILLs the child's group. When the child ends first,
 * this process writes one line and the watcher exits without signalling anything (so a group id
 * reused later is never hit). The watcher is unref'd with its pipe: it never keeps Node running.
 *
 * @example
 *   const jvm = spawn('java', args, { detached: true });
 *   endWithThisProcess(jvm);
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { Socket } from 'node:net';

// `read` succeeds on a line (the child ended: nothing to do) and fails on end-of-file (this
// process died). dash's `kill` wants `-s KILL --` before a negative id (a process group).
const WATCH = 'if read -r _; then exit 0; fi; kill -s KILL -- "-$1" 2>/dev/null; exit 0';

/**
 * Starts the watcher of `child`, which must lead its own process group (`detached: true`);
 * answers the watcher, for tests.
 */
export function endWithThisProcess(child: ChildProcess): ChildProcess | undefined {
  if (child.pid === undefined) return undefined;
  // Its own group: a signal to this process's group (the test runner's SIGKILL of a file's group)
  // must leave the watcher alive to do its job.
  const watcher = spawn('sh', ['-c', WATCH, 'streamfold-lifetime', String(child.pid)], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  const pipe = watcher.stdin as Socket;
  // The watcher may be gone already (killed by hand): writing to it then must not crash us.
  pipe.on('error', () => {});
  pipe.unref();
  watcher.unref();
  const release = () => {
    if (!pipe.destroyed) pipe.end('ended\n');
  };
  if (child.exitCode !== null || child.signalCode !== null) release();
  else child.once('exit', release);
  return watcher;
}
