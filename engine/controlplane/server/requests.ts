import { randomUUID } from 'node:crypto';
import type { DesiredState, DesiredStateAck, NodeDesiredState } from '../messages.ts';

/** Who asked for a desired state, as logged and shown. */
export interface Requester {
  readonly remoteAddress: string;
  readonly userAgent: string;
  /** A valid token came with the request. */
  readonly authenticated: boolean;
}

export type RequestStatus = 'pending' | 'accepted' | 'rejected';

export interface InstanceAnswer {
  readonly instanceId: string;
  /** Null until the instance acknowledged. */
  readonly ack: Omit<DesiredStateAck, 'requestId'> | null;
}

/** A desired state sent to the connected instances of one engine, and their acknowledgements. */
export interface DesiredStateRequest {
  readonly requestId: string;
  readonly engineId: string;
  /** What the operator asked, e.g. `pause orders`, `resume all`. */
  readonly action: string;
  readonly nodes: readonly NodeDesiredState[];
  readonly at: number;
  readonly by: Requester;
  readonly answers: readonly InstanceAnswer[];
  /** Accepted once every instance accepted; rejected once one rejected (see the answers' reasons). */
  readonly status: RequestStatus;
}

/** Requests recently sent, newest first, bounded. */
export class RequestLog {
  readonly #limit: number;
  readonly #requests: DesiredStateRequest[] = [];

  constructor(limit = 50) {
    this.#limit = limit;
  }

  create(
    fields: Omit<DesiredStateRequest, 'requestId' | 'answers' | 'status'>,
    instanceIds: readonly string[],
  ): { request: DesiredStateRequest; desired: DesiredState } {
    const request: DesiredStateRequest = {
      ...fields,
      requestId: `console-${randomUUID().slice(0, 8)}`,
      answers: instanceIds.map((instanceId) => ({ instanceId, ack: null })),
      status: 'pending',
    };
    this.#requests.unshift(request);
    this.#requests.length = Math.min(this.#requests.length, this.#limit);
    return { request, desired: { requestId: request.requestId, nodes: request.nodes } };
  }

  get(requestId: string): DesiredStateRequest | undefined {
    return this.#requests.find((r) => r.requestId === requestId);
  }

  recent(): readonly DesiredStateRequest[] {
    return this.#requests;
  }

  /** Records an instance's acknowledgement; false if no request waits for it. */
  acknowledge(instanceId: string, ack: DesiredStateAck): boolean {
    return this.#answer(ack.requestId, instanceId, { accepted: ack.accepted, reason: ack.reason });
  }

  /** The instance's stream ended: its pending answers become rejections saying so. */
  streamEnded(instanceId: string): boolean {
    let changed = false;
    for (const request of this.#requests) {
      const reason = 'the instance disconnected before acknowledging';
      if (this.#answer(request.requestId, instanceId, { accepted: false, reason })) changed = true;
    }
    return changed;
  }

  #answer(requestId: string, instanceId: string, ack: InstanceAnswer['ack']): boolean {
    const index = this.#requests.findIndex((r) => r.requestId === requestId);
    const request = this.#requests[index];
    if (!request?.answers.some((a) => a.instanceId === instanceId && a.ack === null)) return false;
    const answers = request.answers.map((a) => (a.instanceId === instanceId ? { instanceId, ack } : a));
    this.#requests[index] = { ...request, answers, status: statusOf(answers) };
    return true;
  }
}

function statusOf(answers: readonly InstanceAnswer[]): RequestStatus {
  if (answers.some((a) => a.ack?.accepted === false)) return 'rejected';
  return answers.every((a) => a.ack?.accepted) ? 'accepted' : 'pending';
}
