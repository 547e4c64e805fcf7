import type { ProducerRecord } from '../../operators/broker/types.ts';
import type { JsonValue } from '../../operators/record/json.ts';
import type { Rest2BrokerRequest } from './request.ts';

/** The HTTP answer of a route: a string is sent as `text/plain`, anything else as JSON. */
export interface RouteResponse {
  /** Default: 200 with a body, 204 without. */
  readonly status?: number;
  readonly body?: string | JsonValue;
}

export interface AdapterResponse {
  readonly record: ProducerRecord;
  /** Absent fields fall back to the route's `status` and `response`. */
  readonly response?: RouteResponse;
}

/**
 * Turns a request into the record to produce and the answer to give once it is delivered.
 * Throw a BadRequestError to answer its status; any other error answers 500.
 */
export interface Adapter {
  adapt(request: Rest2BrokerRequest): Promise<AdapterResponse>;
}
