export { EnvError, envBoolean, envInteger, envPort, parseEnv } from './env.ts';
export { errorHandler, notFoundHandler } from './error-handler.ts';
export { type HealthBody, type HealthOptions, healthRoutes } from './health.ts';
export { type ErrorBody, type ErrorDetail, errorBody, HttpError, reasonPhrase } from './http-error.ts';
export { httpMetrics, metricsRoute } from './metrics.ts';
export { type PackageInfo, readPackageInfo } from './package-info.ts';
export { REQUEST_ID_HEADER, requestLogger } from './request-logger.ts';
export { type RunningServer, type ServeOptions, type ShutdownHook, serve } from './serve.ts';
export { createServiceApp, type ServiceAppOptions } from './service-app.ts';
