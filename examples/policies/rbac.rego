# Group RBAC: who may call which route, from the groups of the user the gateway authenticated.
package policies

# Groups that may read, and those that may also write.
readers := {"readers", "editors", "admin"}

writers := {"editors", "admin"}

default allow_read := false

allow_read if {
	input.request.method == "GET"
	some group in input.user.groups
	group in readers
}

default allow_write := false

allow_write if {
	input.request.method in {"POST", "PUT", "PATCH"}
	some group in input.user.groups
	group in writers
}

default allow_delete := false

allow_delete if "admin" in input.user.groups
