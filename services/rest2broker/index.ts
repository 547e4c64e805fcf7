export type { Adapter, AdapterResponse, RouteResponse } from './adapter.ts';
export {
  type BrokerOptions,
  BrokerOptionsAdapter,
  buildRecord,
  type FromRequest,
  type RecordBytes,
} from './broker-options.ts';
export { createRest2Broker, type Rest2Broker, type Rest2BrokerOptions } from './create-rest2broker.ts';
export { BadRequestError } from './errors.ts';
export { KeyGeneratingAdapterFromBody } from './key-generating-adapter.ts';
export type { Rest2BrokerRequest } from './request.ts';
export type { Rest2BrokerRoute } from './route.ts';
export type { JsonSchemaSource } from './validation/json-schema-validator.ts';
