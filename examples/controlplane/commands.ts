import type { DesiredState } from '../../engine/controlplane/index.ts';

export type Command =
  | {
      readonly kind: 'set';
      readonly state: 'NODE_STATE_PAUSED' | 'NODE_STATE_RUNNING';
      readonly nodes: readonly string[];
    }
  | { readonly kind: 'resume-all' }
  | { readonly kind: 'engines' }
  | { readonly kind: 'help' };

export const HELP = `commands:
  pause <node> [<node> ...]    pause these nodes on every connected engine
  resume <node> [<node> ...]   resume these nodes on every connected engine
  resume-all                   resume every node each engine reported
  engines                      list the connected engines
  help`;

/** Parses one stdin line; a string is the error to print. */
export function parseCommand(line: string): Command | string | null {
  const [verb, ...args] = line
    .trim()
    .split(/\s+/)
    .filter((word) => word !== '');
  if (verb === undefined) return null;
  if (verb === 'pause' || verb === 'resume') {
    if (args.length === 0) return `${verb}: name at least one node`;
    return { kind: 'set', state: verb === 'pause' ? 'NODE_STATE_PAUSED' : 'NODE_STATE_RUNNING', nodes: args };
  }
  if (verb === 'resume-all' || verb === 'engines' || verb === 'help') {
    return args.length === 0 ? { kind: verb } : `${verb} takes no argument`;
  }
  return `unknown command "${verb}" (try help)`;
}

let requests = 0;

export function desiredState(
  state: 'NODE_STATE_PAUSED' | 'NODE_STATE_RUNNING',
  nodes: readonly string[],
): DesiredState {
  return { requestId: `cli-${++requests}`, nodes: nodes.map((node) => ({ node, state })) };
}
