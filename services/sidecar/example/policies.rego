package policies

# Only members of the "reader" group may read orders.
allow_readers {
	input.user.groups[_] == "reader"
}

# Row filter: a reader sees only the orders they own (the upstream gets the query in acl_rows).
own_orders {
	order := data.resources[_]
	order.owner == input.user.id
}

# Response filter: the upstream's records without their "secret" field.
hide_secret[body] {
	body := [record | item := input.response.body[_]; record := object.remove(item, ["secret"])]
}
