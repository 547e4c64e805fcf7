import { dirname, resolve } from 'node:path';
import type { Hono } from 'hono';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { createKafkaBroker } from '../../operators/broker/kafka/index.ts';
import { type LazyProducer, lazyProducer } from '../../operators/broker/lazy-producer.ts';
import type { BrokerProducer, ClientProperties } from '../../operators/broker/types.ts';
import {
  bodyLimit,
  createServiceApp,
  createServiceLogger,
  HttpError,
  healthRoutes,
  type PackageInfo,
  type RunningServer,
  readPackageInfo,
  type ServeOptions,
  serve,
} from '../kit/index.ts';
import { BrokerOptionsAdapter } from './broker-options.ts';
import { checkUpRoute } from './check-up.ts';
import type { Rest2BrokerRoute } from './route.ts';
import { routeHandler } from './route-handler.ts';
import type { BodyValidator } from './validation/body-validator.ts';
import { jsonSchemaValidator } from './validation/json-schema-validator.ts';
import { zodValidator } from './validation/zod-validator.ts';

interface Rest2BrokerCommonOptions {
  readonly routes: readonly Rest2BrokerRoute[];
  /** `GET /-/check-up` produces a probe record here and answers 503 unless it is acknowledged. */
  readonly checkUpTopic?: string;
  /** Replaces `/-/healthz`, `/-/ready` and `/-/check-up`: mounted at the root instead. */
  readonly healthRoutes?: Hono;
  /** Name and version in health answers; default: the nearest package.json of the main script. */
  readonly service?: PackageInfo;
  /** Default: the kit's service logger at `LOG_LEVEL` (info), on stdout. */
  readonly logger?: Logger;
  /** Prometheus registry served at `/-/metrics`; default: a new one. */
  readonly registry?: Registry;
  /** Bytes a request body may have (413 beyond); default 1 MiB. */
  readonly bodyLimit?: number;
  /** Wait for the delivery report at most this long (503 beyond); default 10 000. */
  readonly produceTimeoutMs?: number;
  /** Bound of the producer flush on shutdown; default 10 000. */
  readonly flushTimeoutMs?: number;
}

/** Either Kafka's address (the library then owns a producer) or a producer the caller owns and connects. */
export type Rest2BrokerOptions = Rest2BrokerCommonOptions &
  (
    | { readonly brokers: string; readonly kafkaProperties?: ClientProperties; readonly producer?: never }
    | { readonly producer: BrokerProducer; readonly brokers?: never; readonly kafkaProperties?: never }
  );

export interface Rest2Broker {
  readonly app: Hono;
  /** Loads the JSON Schemas, connects an owned producer, then serves (graceful shutdown included). */
  listen(options?: Omit<ServeOptions, 'onShutdown' | 'logger'>): Promise<RunningServer>;
  /** Stops serving (if listening), flushes the producer and disconnects it if owned. Idempotent. */
  close(): Promise<void>;
}

const DEFAULT_BODY_LIMIT = 1024 * 1024;
const DEFAULT_PRODUCE_TIMEOUT_MS = 10_000;

export function createRest2Broker(options: Rest2BrokerOptions): Rest2Broker {
  const logger =
    options.logger ?? createServiceLogger({ service: 'rest2broker', level: process.env.LOG_LEVEL ?? 'info' });
  const service = options.service ?? readPackageInfo(mainScriptDir());
  const produceTimeoutMs = options.produceTimeoutMs ?? DEFAULT_PRODUCE_TIMEOUT_MS;
  const registry = options.registry ?? new Registry();
  const producerHandle = options.producer
    ? givenProducer(options.producer)
    : ownedProducer(options.brokers, options.kafkaProperties, logger, registry);
  const validators = new Map<Rest2BrokerRoute, BodyValidator>();
  for (const route of options.routes) {
    const validator = routeValidator(route);
    if (validator) validators.set(route, validator);
  }

  const health =
    options.healthRoutes ??
    healthRoutes(service).route(
      '/',
      checkUpRoute({
        service,
        topic: options.checkUpTopic,
        producer: producerHandle.get,
        timeoutMs: produceTimeoutMs,
      }),
    );
  const app = createServiceApp({ logger, registry, health });
  for (const route of options.routes) {
    const maxSize = route.bodyLimit ?? options.bodyLimit ?? DEFAULT_BODY_LIMIT;
    app.on(
      route.method.toUpperCase(),
      route.path,
      bodyLimit({
        maxSize,
        onError: (c) => {
          // The rest of the body is never read: the client must not reuse this connection.
          c.header('connection', 'close');
          throw new HttpError(413, `request body exceeds ${maxSize} bytes`);
        },
      }),
      routeHandler({
        adapter: route.adapter ?? new BrokerOptionsAdapter(route.broker),
        validator: validators.get(route),
        producer: producerHandle.get,
        produceTimeoutMs: route.produceTimeoutMs ?? produceTimeoutMs,
        response: { status: route.status, body: route.response },
        exposeKafkaHeaders: route.exposeKafkaHeaders ?? false,
      }),
    );
  }

  let server: RunningServer | undefined;
  let closing: Promise<void> | undefined;
  const flushTimeoutMs = options.flushTimeoutMs ?? 10_000;
  const shutdownProducer = () => producerHandle.release(flushTimeoutMs);

  return {
    app,
    async listen(serveOptions = {}) {
      if (server) throw new Error('rest2broker is already listening');
      await Promise.all([...validators.values()].map((v) => v.prepare()));
      await producerHandle.get();
      server = await serve(app, { ...serveOptions, logger, onShutdown: shutdownProducer });
      return server;
    },
    close() {
      closing ??= server ? server.close() : shutdownProducer();
      return closing;
    },
  };
}

function routeValidator(route: Rest2BrokerRoute): BodyValidator | undefined {
  if (route.schema && route.jsonSchema) {
    throw new Error(
      `route ${route.method} ${route.path}: give either "schema" (zod) or "jsonSchema", not both`,
    );
  }
  if (route.schema) return zodValidator(route.schema);
  if (route.jsonSchema) return jsonSchemaValidator(route.jsonSchema);
  return undefined;
}

/** The producer, connected; `release` flushes it, and disconnects it too when the library created it. */
type ProducerHandle = LazyProducer;

function givenProducer(producer: BrokerProducer): ProducerHandle {
  return {
    get: async () => producer,
    release: (flushTimeoutMs) => producer.flush(flushTimeoutMs),
  };
}

/** Connects on first use; a failed connection is retried by the next request. */
function ownedProducer(
  brokers: string,
  properties: ClientProperties | undefined,
  logger: Logger,
  registry: Registry,
): ProducerHandle {
  const producer = createKafkaBroker({
    properties: { ...properties, 'bootstrap.servers': brokers },
    logger,
    registry,
  }).producer();
  return lazyProducer(producer, logger);
}

/** The directory of the script node was started with, where the service's package.json is found. */
function mainScriptDir(): string {
  const main = process.argv[1];
  return main ? dirname(resolve(main)) : process.cwd();
}
