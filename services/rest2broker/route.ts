import type { z } from 'zod';
import type { Adapter, RouteResponse } from './adapter.ts';
import type { BrokerOptions } from './broker-options.ts';
import type { JsonSchemaSource } from './validation/json-schema-validator.ts';

interface RouteCommon {
  /** Any HTTP method, e.g. `POST`. */
  readonly method: string;
  /** Hono path syntax, e.g. `/orders/:id`; params reach key/value/header functions and adapters. */
  readonly path: string;
  /** Validate the JSON body with zod (the parsed output is what `request.json()` returns). */
  readonly schema?: z.ZodType;
  /** Validate the JSON body with a JSON Schema: file path, `file:`/`http(s):` URL or the object. */
  readonly jsonSchema?: JsonSchemaSource;
  /** Fixed answer body: a string is `text/plain`, anything else JSON. */
  readonly response?: RouteResponse['body'];
  /** Answer status; default 200 with a body, 204 without. */
  readonly status?: number;
  /** Answer with `x-kafka-topic`, `x-kafka-partition`, `x-kafka-offset` of the delivery. */
  readonly exposeKafkaHeaders?: boolean;
  /** Bytes; overrides the service's `bodyLimit`. */
  readonly bodyLimit?: number;
  /** Overrides the service's `produceTimeoutMs`. */
  readonly produceTimeoutMs?: number;
}

/** A route produces either from broker options or through an adapter. */
export type Rest2BrokerRoute = RouteCommon &
  (
    | { readonly broker: BrokerOptions; readonly adapter?: never }
    | { readonly adapter: Adapter; readonly broker?: never }
  );
