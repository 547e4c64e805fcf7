import * as grpc from '@grpc/grpc-js';
import type { Clock } from '../../operators/clock.ts';
import { type BackoffOptions, backoffDelay } from './backoff.ts';
import type { EngineMessage } from './messages.ts';
import { controlPlaneClient } from './proto.ts';

export interface ChannelOptions {
  /** gRPC target: `host:port`, `dns:///host:port`, `unix:/path`. */
  readonly address: string;
  readonly engineId: string;
  readonly credentials: grpc.ChannelCredentials;
  readonly keepaliveMs: number;
  readonly backoff: BackoffOptions;
  readonly clock: Clock;
}

export interface ChannelEvents {
  /** The stream is established (the connection is ready). */
  onUp(): void;
  /** The stream ended or could not be opened; `retryInMs` until the next attempt. */
  onDown(reason: string, retryInMs: number): void;
  onMessage(message: unknown): void;
}

interface Stream {
  readonly generation: number;
  readonly client: grpc.Client;
  readonly call: grpc.ClientDuplexStream<EngineMessage, unknown>;
  /** Writes not yet confirmed, settled with `false` if the stream ends first. */
  readonly pendingWrites: Set<(written: boolean) => void>;
  upSince: number | null;
}

export const ENGINE_ID_METADATA = 'streamfold-engine-id';

/**
 * The engine's end of the `Connect` stream, reopened after every end with exponential backoff
 * and full jitter. Each attempt uses a fresh grpc-js channel, so the retry pace is this
 * backoff's and not the channel's own. A stream that stayed up for `backoff.maxMs` resets it.
 */
export class ControlChannel {
  readonly #options: ChannelOptions;
  readonly #events: ChannelEvents;
  readonly #Client = controlPlaneClient();
  #stream: Stream | null = null;
  #generation = 0;
  #failures = 0;
  #retryTimer: unknown = null;
  #closed = false;

  constructor(options: ChannelOptions, events: ChannelEvents) {
    this.#options = options;
    this.#events = events;
  }

  get up(): boolean {
    return this.#stream?.upSince != null;
  }

  start(): void {
    if (this.#closed || this.#stream || this.#retryTimer !== null) return;
    this.#open();
  }

  /** Writes one message on the open stream; resolves false when no stream is up or it ended first. */
  write(message: EngineMessage): Promise<boolean> {
    const stream = this.#stream;
    if (!stream || stream.upSince === null) return Promise.resolve(false);
    return new Promise((resolve) => {
      const settle = (written: boolean) => {
        stream.pendingWrites.delete(settle);
        resolve(written);
      };
      stream.pendingWrites.add(settle);
      stream.call.write(message, (error?: Error | null) => settle(!error));
    });
  }

  /** Half-closes the stream, waits briefly for the control plane to end it, then cancels. No reconnection. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retryTimer !== null) this.#options.clock.clearTimeout(this.#retryTimer);
    this.#retryTimer = null;
    const stream = this.#stream;
    if (!stream) return;
    const ended = new Promise<void>((resolve) => stream.call.once('status', () => resolve()));
    stream.call.end();
    await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
    this.#finish(stream);
  }

  #open(): void {
    const { address, credentials, keepaliveMs, backoff, engineId } = this.#options;
    const client = new this.#Client(address, credentials, {
      'grpc.keepalive_time_ms': keepaliveMs,
      'grpc.keepalive_timeout_ms': Math.min(keepaliveMs, 20_000),
      'grpc.initial_reconnect_backoff_ms': backoff.initialMs,
      'grpc.max_reconnect_backoff_ms': backoff.maxMs,
    });
    const metadata = new grpc.Metadata();
    metadata.set(ENGINE_ID_METADATA, engineId);
    const call = (client as unknown as { Connect(m: grpc.Metadata): Stream['call'] }).Connect(metadata);
    const stream: Stream = {
      generation: ++this.#generation,
      client,
      call,
      pendingWrites: new Set(),
      upSince: null,
    };
    this.#stream = stream;

    // 'error' is emitted with every non-OK status, which 'status' already handles.
    call.on('error', () => undefined);
    call.on('data', (message: unknown) => {
      if (this.#stream !== stream) return;
      this.#markUp(stream);
      this.#events.onMessage(message);
    });
    call.on('status', (status: grpc.StatusObject) => {
      const reason =
        status.code === grpc.status.OK
          ? 'stream ended by the control plane'
          : `${grpc.status[status.code]}: ${status.details}`;
      this.#ended(stream, reason);
    });
    client.waitForReady(Number.POSITIVE_INFINITY, (error?: Error) => {
      if (!error && this.#stream === stream) this.#markUp(stream);
    });
  }

  #markUp(stream: Stream): void {
    if (stream.upSince !== null) return;
    stream.upSince = this.#options.clock.now();
    this.#events.onUp();
  }

  #ended(stream: Stream, reason: string): void {
    if (this.#stream !== stream || this.#closed) return;
    const { clock, backoff } = this.#options;
    if (stream.upSince !== null && clock.now() - stream.upSince >= backoff.maxMs) this.#failures = 0;
    this.#finish(stream);
    const delay = backoffDelay(this.#failures++, backoff);
    this.#retryTimer = clock.setTimeout(() => {
      this.#retryTimer = null;
      if (!this.#closed) this.#open();
    }, delay);
    this.#events.onDown(reason, delay);
  }

  #finish(stream: Stream): void {
    if (this.#stream === stream) this.#stream = null;
    for (const settle of [...stream.pendingWrites]) settle(false);
    stream.call.cancel();
    stream.client.close();
  }
}
