import { type CliCommand, UsageError } from '../../services/kit/cli-command.ts';
import { SERVICES } from '../../services/registry.ts';

const names = () => Object.keys(SERVICES).sort();

export const serviceCommand: CliCommand = {
  name: 'service',
  summary: 'run one of the HTTP services (configured by environment variables)',
  get usage() {
    return `Usage: streamfold service <name> [--print-config-schema] [service flags]

Starts the service <name>, configured by the environment variables of the product it replaces
(see services/<name>/README.md). SIGTERM or SIGINT stop it gracefully.

Services: ${names().join(', ') || '(none yet)'}

Options:
  --print-config-schema  print the JSON Schema of the service's configuration file and exit
  -h, --help             show this help
A service may accept flags of its own (e.g. provider --rotate-keys): see its README.`;
  },
  options: { 'print-config-schema': { type: 'boolean' } },
  positionals: 1,
  strict: false,
  async run({ positionals, values }, io) {
    const name = positionals[0]!;
    const load = Object.hasOwn(SERVICES, name) ? SERVICES[name] : undefined;
    if (!load)
      throw new UsageError(`unknown service ${JSON.stringify(name)} (services: ${names().join(', ')})`);
    const service = await load();
    if (values['print-config-schema']) {
      if (!service.configSchema) {
        io.err(`streamfold service ${name}: this service reads no configuration file`);
        return 1;
      }
      io.out(JSON.stringify(service.configSchema(), null, 2));
      return 0;
    }
    const flags = new Set(Object.keys(values).filter((flag) => flag !== 'print-config-schema'));
    for (const flag of flags) {
      const known = service.flags && Object.hasOwn(service.flags, flag);
      if (!known || values[flag] !== true) {
        throw new UsageError(
          `service ${name} does not take --${flag}${values[flag] === true ? '' : ' with a value'} (flags: ${
            Object.keys(service.flags ?? {})
              .map((f) => `--${f}`)
              .join(', ') || 'none'
          })`,
        );
      }
    }
    return service.run(process.env, io, flags);
  },
};
