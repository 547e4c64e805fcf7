# Path parameters: a project's routes are open to its members and to admins.
package policies

default project_member := false

project_member if input.request.pathParams.projectId in input.user.properties.projects

project_member if "admin" in input.user.groups

default edit_own_comment := false

edit_own_comment if {
	input.request.method == "PATCH"
	startswith(input.request.path, "/projects/")
	input.request.pathParams.authorId == input.user.id
}
