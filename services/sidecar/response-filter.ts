/**
 * Rönd's response flow: a 2xx answer with a body is read whole, its JSON goes to the policy as
 * `input.response.body`, and the policy's value becomes the new body. Other answers pass through.
 */
import type { Logger } from 'pino';
import { jsonText } from '../rego/index.ts';
import { GENERIC_MESSAGE, NO_PERMISSIONS_MESSAGE, rondError } from './errors.ts';
import { buildInput, type InputParts } from './input.ts';
import type { SidecarMetrics } from './metrics.ts';
import type { PolicySet } from './policies.ts';
import { responseHeaders, type UpstreamResponse } from './proxy.ts';

export async function filterResponse(
  upstream: UpstreamResponse,
  policy: string,
  parts: InputParts,
  deps: { policies: PolicySet; metrics: SidecarMetrics },
  log: Logger,
): Promise<Response> {
  const text = await upstream.body.text();
  const headers = responseHeaders(upstream.headers, ['content-length']);
  if (text.length === 0) return new Response(null, { status: upstream.status, headers });
  if (!String(upstream.headers['content-type'] ?? '').startsWith('application/json')) {
    log.error({ policy }, 'response policy: response content-type is not application/json');
    return rondError(
      500,
      'unexpected content type: response content-type is not application/json',
      GENERIC_MESSAGE,
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    log.error({ policy, err: { message: (err as Error).message } }, 'response body is not valid');
    return rondError(502, `response body is not valid: ${(err as Error).message}`, GENERIC_MESSAGE);
  }
  const started = performance.now();
  const done = (result: string) => {
    const seconds = (performance.now() - started) / 1000;
    deps.metrics.policyDuration.observe({ policy }, seconds);
    deps.metrics.decisions.inc({ policy, result });
    log.info({ policy, result, ms: Math.round(seconds * 10_000) / 10, flow: 'response' }, 'policy decision');
  };
  try {
    const print = (line: string) => log.debug({ policy, print: line }, 'policy print');
    const decision = await deps.policies.decide(policy, buildInput(parts, body), print);
    if (!decision.allowed) {
      done('denied');
      return rondError(403, 'policy not allowed', NO_PERMISSIONS_MESSAGE);
    }
    done('allowed');
    return new Response(jsonText(decision.value), { status: upstream.status, headers });
  } catch (err) {
    done('error');
    log.error({ policy, err: { message: (err as Error).message } }, 'response policy evaluation failed');
    return rondError(500, 'response policy evaluation failed', GENERIC_MESSAGE);
  }
}
