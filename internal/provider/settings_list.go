package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// The list resources of the settings types (their settings on every branch
// with Neon Auth), and the registration of each settings type with its list
// resource.

// settingsList is the list resource of a settings type: the settings of
// every branch with Neon Auth, named by the branch. Only the branch-scoped
// API has them.
type settingsList[A any, M any, PM settingsModel[M]] struct {
	settingsResource[A, M, PM]
}

func (l *settingsList[A, M, PM]) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listConfigSchema("the " + string(l.typeName) + " settings")
	// Only the branch-scoped API has these settings: the description and
	// branch_id say nothing of project mode but that it lacks them.
	resp.Schema.MarkdownDescription = "Finds the " + string(l.typeName) + " settings of a Neon project: on every branch " +
		"with Neon Auth, or on one branch. Not available with `auth_api = \"project\"`."
	resp.Schema.Attributes["branch_id"] = listschema.StringAttribute{
		MarkdownDescription: "Id of the one branch to search. Omitted: every branch with Neon Auth.",
		Optional:            true,
	}
}

func (l *settingsList[A, M, PM]) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	if needsBranchMode(&l.configured, stream) {
		return
	}
	l.listIn(ctx, &l.settingsResource, req, stream, l.listScopes, func(ctx context.Context, s listScope) ([]foundObject, error) {
		return singleton(ctx, l.data.auth, s)
	})
}

// settingsType is what the provider serves of kind k: its resource and its
// list resource.
func settingsType[A any, M any, PM settingsModel[M]](k settingsKind[A, M]) servedType {
	return servedType{resource: func() resource.Resource {
		r := settingsOf[A, M, PM](k)
		return &r
	}, list: func() list.ListResource { return listOf(settingsOf[A, M, PM](k)) }}
}

// listOf is the list resource of a settings resource.
func listOf[A any, M any, PM settingsModel[M]](r settingsResource[A, M, PM]) list.ListResource {
	return &settingsList[A, M, PM]{r}
}
