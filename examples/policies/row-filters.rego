# Row filters: partially evaluated with data.resources unknown, then translated to a MongoDB
# query (`streamfold rego partial --mongo`). Each body is one alternative ($or of $and).
package policies

# A user sees the live projects of their tenant; an admin sees every project.
filter_projects if {
	project := data.resources[_]
	project.tenantId == input.user.properties.tenantId
	project.archived == false
}

filter_projects if {
	"admin" in input.user.groups
	data.resources[_]
}

# Orders: the user's own, or those of their teams above a threshold for managers.
filter_orders if {
	data.resources[_].customerId == input.user.id
}

filter_orders if {
	"managers" in input.user.groups
	order := data.resources[_]
	order.team in input.user.properties.teams
	order.total >= 1000
}
