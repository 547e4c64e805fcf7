package policies

ada := {"id": "u-ada", "groups": ["readers"], "properties": {"tenantId": "t1", "projects": ["p1"], "teams": ["north"]}}

root := {"id": "u-root", "groups": ["admin"], "properties": {"tenantId": "t0", "projects": [], "teams": []}}

get(path) := {"method": "GET", "path": path, "headers": {}}

# RBAC

test_reader_may_read if allow_read with input as {"request": get("/projects"), "user": ada}

test_reader_may_not_write if not allow_write with input as {"request": {"method": "POST"}, "user": ada}

test_editor_may_write if allow_write with input as {"request": {"method": "PUT"}, "user": {"groups": ["staff", "editors"]}}

test_no_groups_no_access if {
	not allow_read with input as {"request": get("/projects"), "user": {"groups": []}}
	allow_read == false with input as {"request": get("/projects"), "user": {"groups": []}}
}

test_only_admin_deletes if {
	allow_delete with input as {"user": root}
	not allow_delete with input as {"user": ada}
}

# Headers

headers := {"X-Api-Version": ["3"], "Content-Type": ["application/json; charset=utf-8"], "X-Tenant-Id": ["t1"]}

test_headers_accepted if {
	api_version_ok with input as {"request": {"headers": headers}}
	json_body with input as {"request": {"headers": headers}}
	tenant_header_matches with input as {"request": {"headers": headers}, "user": ada}
}

test_old_api_version_refused if not api_version_ok with input as {"request": {"headers": {"X-Api-Version": ["1"]}}}

test_missing_header_refused if {
	not json_body with input as {"request": {"headers": {}}}
	not tenant_header_matches with input as {"request": {"headers": headers}, "user": root}
}

# Path parameters

test_member_of_project if project_member with input as {"request": {"pathParams": {"projectId": "p1"}}, "user": ada}

test_not_member_of_other_project if not project_member with input as {"request": {"pathParams": {"projectId": "p2"}}, "user": ada}

test_admin_member_of_every_project if project_member with input as {"request": {"pathParams": {"projectId": "p9"}}, "user": root}

test_edit_own_comment_only if {
	request := {"method": "PATCH", "path": "/projects/p1/comments/c1", "pathParams": {"authorId": "u-ada"}}
	edit_own_comment with input as {"request": request, "user": ada}
	not edit_own_comment with input as {"request": request, "user": root}
}

# Row filters, evaluated here on concrete rows

projects := [
	{"id": "p1", "tenantId": "t1", "archived": false},
	{"id": "p2", "tenantId": "t1", "archived": true},
	{"id": "p3", "tenantId": "t2", "archived": false},
]

test_row_filter_keeps_live_projects_of_tenant if {
	filter_projects with data.resources as [projects[0]] with input as {"user": ada}
	not filter_projects with data.resources as [projects[1], projects[2]] with input as {"user": ada}
}

test_row_filter_admin_sees_all if filter_projects with data.resources as [projects[2]] with input as {"user": root}

test_row_filter_manager_orders if {
	manager := object.union(ada, {"groups": ["managers"]})
	filter_orders with data.resources as [{"customerId": "x", "team": "north", "total": 1500}] with input as {"user": manager}
	not filter_orders with data.resources as [{"customerId": "x", "team": "north", "total": 10}] with input as {"user": manager}
}

# Response filters

body := [
	{"id": "p1", "visibility": "public", "tenantId": "t9"},
	{"id": "p2", "visibility": "private", "tenantId": "t1"},
	{"id": "p3", "visibility": "private", "tenantId": "t2"},
]

test_response_keeps_visible_projects if {
	ids := [p.id | some p in visible_projects] with input as {"response": {"body": body}, "user": ada}
	ids == ["p1", "p2"]
}

test_response_redacts_for_non_admins if {
	users := [{"id": "u1", "email": "a@example.com", "phone": "1", "name": "A"}]
	redacted_users == [{"id": "u1", "name": "A"}] with input as {"response": {"body": users}, "user": ada}
	redacted_users == users with input as {"response": {"body": users}, "user": root}
}

# The v0 module

test_health_open_to_all if allow_health with input as {"request": get("/-/healthz")}

test_deny_reasons if {
	deny_reasons == {"anonymous user", "delete needs the admin group"} with input as {"request": {"method": "DELETE"}, "user": {"groups": []}}
	count(deny_reasons) == 0 with input as {"request": get("/"), "user": ada}
}
