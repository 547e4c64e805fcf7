import type { MessageHeaders, ProducerRecord } from '../../operators/broker/types.ts';
import type { Adapter, AdapterResponse } from './adapter.ts';
import type { Rest2BrokerRequest } from './request.ts';

/** A fixed value, or one computed from the request (path params, headers, body...). */
export type FromRequest<T> = T | ((request: Rest2BrokerRequest) => T | Promise<T>);

export type RecordBytes = string | Buffer | null;

/**
 * The record produced for each request. Strings are encoded as UTF-8. By default the key is
 * null (the partitioner spreads records) and the value is the raw request body.
 */
export interface BrokerOptions {
  readonly topic: string;
  readonly key?: FromRequest<RecordBytes>;
  readonly partition?: FromRequest<number>;
  readonly headers?: FromRequest<Readonly<Record<string, string | Buffer>>>;
  /** Milliseconds since the epoch; default: the producer's clock. */
  readonly timestamp?: FromRequest<number>;
  readonly value?: FromRequest<RecordBytes>;
}

function resolveOption<T>(option: FromRequest<T>, request: Rest2BrokerRequest): T | Promise<T> {
  return typeof option === 'function'
    ? (option as (r: Rest2BrokerRequest) => T | Promise<T>)(request)
    : option;
}

function toBytes(value: RecordBytes): Buffer | null {
  return typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
}

/** Builds the record of `options` for `request`; `overrides` win over the options (adapters use it). */
export async function buildRecord(
  options: BrokerOptions,
  request: Rest2BrokerRequest,
  overrides: { key?: RecordBytes; value?: RecordBytes } = {},
): Promise<ProducerRecord> {
  const key =
    'key' in overrides
      ? overrides.key
      : options.key === undefined
        ? null
        : await resolveOption(options.key, request);
  const value =
    'value' in overrides
      ? overrides.value
      : options.value === undefined
        ? request.body
        : await resolveOption(options.value, request);
  const partition =
    options.partition === undefined ? undefined : await resolveOption(options.partition, request);
  const headers = options.headers === undefined ? undefined : await resolveOption(options.headers, request);
  const timestamp =
    options.timestamp === undefined ? undefined : await resolveOption(options.timestamp, request);
  return {
    topic: options.topic,
    key: toBytes(key ?? null),
    value: toBytes(value ?? null),
    ...(partition === undefined ? {} : { partition }),
    ...(headers === undefined ? {} : { headers: toMessageHeaders(headers) }),
    ...(timestamp === undefined ? {} : { timestamp }),
  };
}

function toMessageHeaders(headers: Readonly<Record<string, string | Buffer>>): MessageHeaders {
  return Object.entries(headers).map(([name, value]) => ({ [name]: value }));
}

/** The adapter of a route configured with plain broker options. */
export class BrokerOptionsAdapter implements Adapter {
  constructor(private readonly options: BrokerOptions) {}

  async adapt(request: Rest2BrokerRequest): Promise<AdapterResponse> {
    return { record: await buildRecord(this.options, request) };
  }
}
