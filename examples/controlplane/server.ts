/**
 * A reference control plane: prints every feedback event of the engines connected to it and
 * sends desired states typed on stdin (`pause <node>`, `resume <node>`, `resume-all`).
 *
 *   node --import tsx examples/controlplane/server.ts --port 50051 [--host 127.0.0.1] [--resume-on-connect]
 */
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import {
  controlPlaneService,
  type EngineMessage,
  type FeedbackEvent,
} from '../../engine/controlplane/index.ts';
import { type Command, desiredState, HELP, parseCommand } from './commands.ts';
import { formatAck, formatFeedback } from './format.ts';

interface Engine {
  readonly call: grpc.ServerDuplexStream<EngineMessage, unknown>;
  lastFeedback: FeedbackEvent | null;
}

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '50051' },
    host: { type: 'string', default: '127.0.0.1' },
    'resume-on-connect': { type: 'boolean', default: false },
  },
});
const engines = new Set<Engine>();
const nameOf = (engine: Engine) =>
  engine.lastFeedback?.engineId ?? String(engine.call.metadata.get('streamfold-engine-id')[0] ?? '?');

const server = new grpc.Server();
server.addService(controlPlaneService(), {
  Connect(call: grpc.ServerDuplexStream<EngineMessage, unknown>) {
    const engine: Engine = { call, lastFeedback: null };
    engines.add(engine);
    console.log(`${nameOf(engine)}: connected`);
    call.on('data', (message: EngineMessage) => {
      if ('feedback' in message && message.feedback) {
        const first = engine.lastFeedback === null;
        engine.lastFeedback = message.feedback;
        console.log(formatFeedback(message.feedback));
        if (first && values['resume-on-connect']) run({ kind: 'resume-all' });
      } else if ('ack' in message && message.ack) {
        console.log(formatAck(nameOf(engine), message.ack));
      }
    });
    const gone = () => {
      if (engines.delete(engine)) console.log(`${nameOf(engine)}: disconnected`);
    };
    call.on('end', () => {
      gone();
      call.end();
    });
    call.on('error', gone);
    call.on('cancelled', gone);
  },
});

function run(command: Command): void {
  if (command.kind === 'help') {
    console.log(HELP);
  } else if (engines.size === 0) {
    console.log('no engine connected');
  } else {
    for (const engine of engines) send(engine, command);
  }
}

function send(engine: Engine, command: Exclude<Command, { kind: 'help' }>): void {
  const nodes = nodesOf(engine);
  if (command.kind === 'engines') {
    console.log(`${nameOf(engine)}: nodes ${nodes.join(', ') || '(no feedback yet)'}`);
  } else if (command.kind === 'set') {
    engine.call.write(desiredState(command.state, command.nodes));
  } else if (nodes.length === 0) {
    console.log(`${nameOf(engine)}: no feedback yet, its nodes are unknown`);
  } else {
    engine.call.write(desiredState('NODE_STATE_RUNNING', nodes));
  }
}

function nodesOf(engine: Engine): string[] {
  return engine.lastFeedback?.nodes.map((n) => n.node) ?? [];
}

server.bindAsync(`${values.host}:${values.port}`, grpc.ServerCredentials.createInsecure(), (error, port) => {
  if (error) {
    console.error(`cannot listen on ${values.host}:${values.port}: ${error.message}`);
    process.exit(1);
  }
  console.log(`control plane listening on ${values.host}:${port} (type help)`);
});

createInterface({ input: process.stdin }).on('line', (line) => {
  const command = parseCommand(line);
  if (typeof command === 'string') console.log(command);
  else if (command) run(command);
});

const shutdown = () => server.tryShutdown(() => process.exit(0));
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
