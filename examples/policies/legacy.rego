# A policy in Rego v0 (OPA 0.x, Rönd's historical syntax): read as v0 since it does not parse as v1.
package policies

allow_health {
	input.request.method == "GET"
	input.request.path == "/-/healthz"
}

deny_reasons[reason] {
	not input.user.id
	reason := "anonymous user"
}

deny_reasons[reason] {
	input.request.method == "DELETE"
	not allow_delete
	reason := "delete needs the admin group"
}
