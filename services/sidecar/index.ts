/** `streamfold service sidecar`: the Rönd-compatible policy authorization sidecar. */
import { z } from 'zod';
import { EnvError } from '../kit/index.ts';
import type { ServiceEntry } from '../registry.ts';
import { readConfig } from './config.ts';
import { manualRoutesSchema } from './permissions.ts';
import { startSidecar } from './start.ts';

export { createSidecarApp, type SidecarDeps } from './app.ts';
export { readConfig, type SidecarConfig } from './config.ts';
export { type Sidecar, type StartOptions, startSidecar } from './start.ts';

export const service: ServiceEntry = {
  summary: 'policy authorization sidecar (Rönd-compatible): Rego policies, row and response filters',
  configSchema: () => z.toJSONSchema(manualRoutesSchema, { io: 'input' }),
  async run(env, io) {
    let config: ReturnType<typeof readConfig>;
    try {
      config = readConfig(env);
    } catch (err) {
      if (!(err instanceof EnvError)) throw err;
      for (const problem of err.problems) io.err(problem);
      return 1;
    }
    let sidecar: Awaited<ReturnType<typeof startSidecar>>;
    try {
      sidecar = await startSidecar(config, { handleSignals: false });
    } catch (err) {
      io.err(`sidecar: ${(err as Error).message}`);
      return 1;
    }
    // Until a signal, or until a permissions document fetched from the target service proves
    // unusable (Rönd stops then too).
    let onSignal = () => {};
    const stopped = await new Promise<string | undefined>((resolve) => {
      onSignal = () => resolve(undefined);
      process.once('SIGTERM', onSignal);
      process.once('SIGINT', onSignal);
      sidecar.loaded.catch((err: Error) => resolve(err.message));
    });
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    if (stopped !== undefined) io.err(`sidecar: ${stopped}`);
    await sidecar.close();
    return stopped === undefined ? 0 : 1;
  },
};
