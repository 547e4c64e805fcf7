/**
 * An engine in a process of its own, under the control plane at argv[2], for tests that kill it:
 *   node --import tsx test/engine/controlplane/server/engine-process.ts 127.0.0.1:50051
 */
import { startEngineHarness } from '../engine-harness.ts';

await startEngineHarness({ address: process.argv[2] as string });
process.stdout.write('started\n');
