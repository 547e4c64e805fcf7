# Header checks: API version, content type, and the tenant header against the user's tenant.
package policies

# Rönd passes headers as Go's http.Header: canonical names, each a list of values.
header(name) := input.request.headers[name][0]

default api_version_ok := false

api_version_ok if header("X-Api-Version") in {"2", "3"}

default json_body := false

json_body if startswith(header("Content-Type"), "application/json")

default tenant_header_matches := false

tenant_header_matches if header("X-Tenant-Id") == input.user.properties.tenantId
