export { type BodyLimitOptions, bodyLimit, limitBody } from './body-limit.ts';
export { EnvError, envBoolean, envInteger, envJsonObject, envPort, parseEnv } from './env.ts';
export { errorHandler, notFoundHandler } from './error-handler.ts';
export { type HealthBody, type HealthOptions, healthRoutes } from './health.ts';
export { type ErrorBody, type ErrorDetail, errorBody, HttpError, reasonPhrase } from './http-error.ts';
export { BatchedLogDestination, type LineSink } from './log-destination.ts';
export { createServiceLogger, type ServiceLoggerOptions } from './logger.ts';
export { type HttpMetricsRecorder, httpMetricsRecorder, metricsRoute } from './metrics.ts';
export {
  type ObserveRequestsOptions,
  observeRequests,
  REQUEST_ID_HEADER,
  requestLog,
} from './observe-requests.ts';
export { ERROR_BODY_SCHEMA, openApiSchema } from './openapi.ts';
export { type PackageInfo, readPackageInfo } from './package-info.ts';
export { type RunningServer, type ServeOptions, type ShutdownHook, serve, stopOnSignal } from './serve.ts';
export { createServiceApp, type ServiceAppOptions } from './service-app.ts';
export { ThrownValueError } from './thrown-values.ts';
