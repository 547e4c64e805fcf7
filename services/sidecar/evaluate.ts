/**
 * The request flow of one matched route: the user, the body and the allow policy (or the row
 * filter), as Rönd's `rbacHandler`/`EvaluateRequest`. Answers an error `Response` or what the
 * forwarding needs.
 */
import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import { jsonText } from '../rego/index.ts';
import type { SidecarConfig } from './config.ts';
import { GENERIC_MESSAGE, NO_PERMISSIONS_MESSAGE, POLICY_FAILED, rondError } from './errors.ts';
import { buildInput, headersFromRaw, type InputParts } from './input.ts';
import type { SidecarMetrics } from './metrics.ts';
import type { PolicySet } from './policies.ts';
import { BodyParseError, BodyTooLargeError, readJsonBody, shouldParseBody } from './request-body.ts';
import type { RouteMatch } from './router.ts';
import {
  type InputUser,
  inputUser,
  type UserStore,
  userFromHeaders,
  withResourcePermissionsMap,
} from './user-store.ts';

/** Rönd's default row-filter header. */
export const ROW_FILTER_HEADER = 'acl_rows';

export interface EvaluationDeps {
  readonly config: SidecarConfig;
  readonly policies: PolicySet;
  readonly users: UserStore | undefined;
  readonly metrics: SidecarMetrics;
}

export interface Allowed {
  readonly parts: InputParts;
  /** The buffered body when it was read for the policy, else undefined (stream the original). */
  readonly bufferedBody: Buffer | undefined;
  /** Headers to set on the forwarded request (the row filter); null: the caller's is dropped. */
  readonly setHeaders: Record<string, string | null>;
}

export async function evaluateRequest(
  deps: EvaluationDeps,
  match: RouteMatch,
  incoming: IncomingMessage,
  url: URL,
  log: Logger,
): Promise<Allowed | Response> {
  const { config, policies, metrics } = deps;
  const method = (incoming.method ?? 'GET').toUpperCase();
  const header = (name: string) => firstValue(incoming.headers[name.toLowerCase()]);

  let user: InputUser;
  try {
    const fromHeaders = userFromHeaders(
      header(config.USER_ID_HEADER_KEY),
      header(config.USER_GROUPS_HEADER_KEY),
      header(config.USER_PROPERTIES_HEADER_KEY),
    );
    user = deps.users ? await deps.users.complete(fromHeaders) : inputUser(fromHeaders);
    if (match.config.options.enableResourcePermissionsMapOptimization)
      user = withResourcePermissionsMap(user);
  } catch (err) {
    log.error({ err: { message: (err as Error).message } }, 'failed to get input user');
    return rondError(500, 'failed to get input user', GENERIC_MESSAGE);
  }

  const { requestFlow } = match.config;
  let body: unknown;
  let bufferedBody: Buffer | undefined;
  if (!requestFlow.preventBodyLoad && shouldParseBody(method, incoming)) {
    try {
      const read = await readJsonBody(incoming, config.MAX_REQUEST_BODY_BYTES);
      body = read.json;
      bufferedBody = read.bytes;
    } catch (err) {
      if (err instanceof BodyTooLargeError) return rondError(413, err.message, GENERIC_MESSAGE);
      if (err instanceof BodyParseError) {
        log.error({ err: { message: err.message } }, 'failed to create rond input');
        return rondError(500, 'failed to create rond input', GENERIC_MESSAGE);
      }
      throw err;
    }
  }

  const parts: InputParts = {
    method,
    url,
    headers: headersFromRaw(incoming.rawHeaders),
    clientType: header(config.CLIENT_TYPE_HEADER_KEY),
    pathParams: match.pathParams,
    body,
    user,
  };
  const input = buildInput(parts);
  const policy = requestFlow.policyName;
  const started = performance.now();
  const decided = (result: 'allowed' | 'denied' | 'error' | 'no rows') => {
    const seconds = (performance.now() - started) / 1000;
    metrics.policyDuration.observe({ policy }, seconds);
    metrics.decisions.inc({ policy, result });
    log.info(
      { route: match.template, method, policy, result, ms: Math.round(seconds * 10_000) / 10 },
      'policy decision',
    );
  };

  const setHeaders: Record<string, string | null> = {};
  // Rönd prints to stdout; here the lines go to the log, at debug level (they may hold the input).
  const print = (line: string) => log.debug({ policy, print: line }, 'policy print');
  try {
    if (requestFlow.generateQuery) {
      const query = await policies.rowFilter(policy, input, print);
      if (query === undefined) {
        decided('no rows');
        // Rönd: a JSON request gets an empty list, as if every row were filtered out.
        return (incoming.headers['content-type'] ?? '').startsWith('application/json')
          ? new Response('[]', { status: 200, headers: { 'content-type': 'application/json' } })
          : rondError(403, POLICY_FAILED, NO_PERMISSIONS_MESSAGE);
      }
      const headerName = (requestFlow.queryOptions.headerName || ROW_FILTER_HEADER).toLowerCase();
      // As Rönd, no filter is sent when every row passes; a caller's header is dropped all the same.
      setHeaders[headerName] = query === 'every row' ? null : jsonText(query);
    } else if (!(await policies.decide(policy, input, print)).allowed) {
      decided('denied');
      return rondError(403, POLICY_FAILED, NO_PERMISSIONS_MESSAGE);
    }
  } catch (err) {
    decided('error');
    log.error({ err: { message: (err as Error).message }, policy }, 'policy evaluation failed');
    return rondError(500, 'policy evaluation failed', GENERIC_MESSAGE);
  }
  decided('allowed');
  return { parts, bufferedBody, setHeaders };
}

function firstValue(value: string | string[] | undefined): string {
  return (Array.isArray(value) ? value[0] : value) ?? '';
}
