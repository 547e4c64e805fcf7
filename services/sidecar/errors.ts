/** Rönd's error answers: `{"error", "message", "statusCode"}` in Go's field order. */

export const NO_ROUTE_MESSAGE = 'User is not allowed to request the API';
/** The spec's wording (Rönd says "contact the administrator"). */
export const NO_PERMISSIONS_MESSAGE =
  'You do not have permissions to access this feature, contact the project administrator for more information.';
export const GENERIC_MESSAGE = 'Internal server error, please try again later';
export const POLICY_FAILED = 'RBAC policy evaluation failed';

export function rondError(statusCode: number, error: string, message: string): Response {
  return new Response(JSON.stringify({ error, message, statusCode }), {
    status: statusCode,
    headers: { 'content-type': 'application/json' },
  });
}
