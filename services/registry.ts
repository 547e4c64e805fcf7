/**
 * The services `streamfold service <name>` starts. Each entry is loaded only when asked for, so
 * one service's dependencies are not loaded by another.
 *
 * @example
 *   // services/auth/index.ts exports `service: ServiceEntry`; here:
 *   auth: async () => (await import('./auth/index.ts')).service,
 */

/** Where a service writes what it tells the operator before its logger exists (usage, config errors). */
export interface ServiceIo {
  out(line: string): void;
  err(line: string): void;
}

export interface ServiceEntry {
  /** One line for `streamfold service --help`. */
  readonly summary: string;
  /**
   * Starts the service, configured by `env` alone (the variables of the product it replaces), and
   * resolves with the process exit code once it has stopped (SIGTERM/SIGINT: graceful shutdown).
   * A bad or missing variable: a message naming each one, and exit code 1.
   */
  run(
    env: Readonly<Record<string, string | undefined>>,
    io: ServiceIo,
    flags?: ReadonlySet<string>,
  ): Promise<number>;
  /**
   * The flags the service accepts after its name (`--rotate-keys`), each with one line of help;
   * `run` gets the ones given. The CLI rejects any other flag.
   */
  readonly flags?: Readonly<Record<string, string>>;
  /** The JSON Schema of the configuration file the service reads, if it reads one. */
  configSchema?(): unknown;
}

export const SERVICES: Readonly<Record<string, () => Promise<ServiceEntry>>> = {
  auth: async () => (await import('./auth/index.ts')).service,
  notification: async () => (await import('./notification/index.ts')).service,
  provider: async () => (await import('./provider/index.ts')).service,
  sidecar: async () => (await import('./sidecar/index.ts')).service,
};
