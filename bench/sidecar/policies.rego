package policies

allow_group {
	input.user.groups[_] == "reader"
}

rows_owner {
	order := data.resources[_]
	order.owner == input.user.id
}

hide_secret[out] {
	out := [x | item := input.response.body[_]; x := object.remove(item, ["secret"])]
}
