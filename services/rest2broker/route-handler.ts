import type { Context, Handler } from 'hono';
import type { BrokerProducer, DeliveryReport } from '../../operators/broker/types.ts';
import { HttpError } from '../kit/index.ts';
import type { Adapter, RouteResponse } from './adapter.ts';
import { produceAcknowledged } from './produce.ts';
import { parseJsonBody, toRest2BrokerRequest } from './request.ts';
import type { BodyValidator } from './validation/body-validator.ts';

export interface RouteHandlerOptions {
  readonly adapter: Adapter;
  readonly validator: BodyValidator | undefined;
  readonly producer: () => Promise<BrokerProducer>;
  readonly produceTimeoutMs: number;
  readonly response: RouteResponse;
  readonly exposeKafkaHeaders: boolean;
}

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * One request: read the body, validate it when the route has a schema, adapt it into a record,
 * produce it and wait for the delivery report, then answer. Errors are thrown as HttpError (or
 * left to the service's error handler, which answers 500).
 */
export function routeHandler(options: RouteHandlerOptions): Handler {
  return async (c) => {
    const body = Buffer.from(await c.req.arrayBuffer());
    const validated = options.validator ? await validateBody(c, body, options.validator) : undefined;
    const adapted = await options.adapter.adapt(toRest2BrokerRequest(c, body, validated));
    const report = await produceAcknowledged(options.producer, adapted.record, options.produceTimeoutMs);
    if (options.exposeKafkaHeaders) setKafkaHeaders(c, report);
    return respond(c, {
      status: adapted.response?.status ?? options.response.status,
      body: adapted.response?.body ?? options.response.body,
    });
  };
}

async function validateBody(c: Context, body: Buffer, validator: BodyValidator): Promise<{ value: unknown }> {
  const contentType = c.req.header('content-type') ?? '';
  if (!JSON_MEDIA_TYPE.test(contentType)) {
    throw new HttpError(
      415,
      `expected an application/json body (got ${JSON.stringify(contentType || 'none')})`,
    );
  }
  const result = await validator.validate(parseJsonBody(body));
  if (result.ok) return { value: result.value };
  const listed = result.errors.map((e) => `${e.path}: ${e.message}`).join('; ');
  throw new HttpError(400, `request body is invalid: ${listed}`, { errors: result.errors });
}

function setKafkaHeaders(c: Context, report: DeliveryReport): void {
  c.header('x-kafka-topic', report.topic);
  c.header('x-kafka-partition', String(report.partition));
  c.header('x-kafka-offset', String(report.offset));
}

function respond(c: Context, { status, body }: RouteResponse): Response {
  if (body === undefined) return c.body(null, (status ?? 204) as 204);
  const code = (status ?? 200) as 200;
  return typeof body === 'string' ? c.text(body, code) : c.json(body, code);
}
