import { parseArgs } from 'node:util';
import { type CliCommand, type CliIo, UsageError } from '../../services/kit/cli-command.ts';
import { regoCommand } from '../../services/rego/cli/index.ts';
import { controlplaneCommand } from './controlplane.ts';
import { explainCommand } from './explain.ts';
import { kafkaCommand } from './kafka.ts';
import { refreshCommand } from './refresh.ts';
import { runCommand } from './run.ts';
import { schemaCommand } from './schema.ts';
import { serviceCommand } from './service.ts';
import { validateCommand } from './validate.ts';

const COMMANDS: readonly CliCommand[] = [
  validateCommand,
  schemaCommand,
  explainCommand,
  runCommand,
  refreshCommand,
  serviceCommand,
  controlplaneCommand,
  regoCommand,
  kafkaCommand,
];

const USAGE = `Usage: streamfold <command> [options]

Commands:
${COMMANDS.map((command) => `  ${command.name.padEnd(14)}${command.summary}`).join('\n')}

Run "streamfold <command> --help" for the options of a command.`;

const io: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

function parseCommandArgs(command: CliCommand, args: string[]) {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: command.strict ?? true,
    });
  } catch (error) {
    // parseArgs reports unknown flags and missing option values as TypeErrors with a code.
    throw new UsageError((error as Error).message);
  }
  const count = parsed.positionals.length;
  const wanted = command.positionals;
  const fits = typeof wanted === 'number' ? count === wanted : count >= wanted.min;
  if (!parsed.values.help && !fits) {
    const expected =
      typeof wanted !== 'number'
        ? `at least ${wanted.min} argument(s)`
        : wanted === 0
          ? 'no arguments'
          : `${wanted} argument(s)`;
    throw new UsageError(`${command.name} takes ${expected}, got ${count}`);
  }
  return parsed;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? io.err : io.out)(USAGE);
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (!command) {
    io.err(`streamfold: unknown command ${JSON.stringify(name)}\n\n${USAGE}`);
    return 2;
  }
  try {
    const parsed = parseCommandArgs(command, rest);
    if (parsed.values.help) {
      io.out(command.usage);
      return 0;
    }
    return await command.run(parsed, io);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`streamfold ${command.name}: ${error.message}\n\n${command.usage}`);
    return 2;
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  // Expected failures are handled by the commands; this is a bug, so keep the stack.
  io.err(
    `streamfold: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  process.exitCode = 70;
}
