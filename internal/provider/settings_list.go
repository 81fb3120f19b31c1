package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// The list resources of the settings types: their settings on every branch with
// Neon Auth.

// settingsList is the list resource of a settings type: the settings of
// every branch with Neon Auth, named by the branch. Only the branch-scoped
// API has them.
type settingsList[A any, M any, PM settingsModel[M]] struct {
	settingsResource[A, M, PM]
}

func (l *settingsList[A, M, PM]) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listConfigSchema("the " + string(l.typeName) + " settings")
	resp.Schema.MarkdownDescription += " Needs `auth_api = \"branch\"`."
}

func (l *settingsList[A, M, PM]) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	if l.data.ready() && l.data.family != apiclient.FamilyBranch {
		var diags diag.Diagnostics
		diags.AddError("Needs the branch-scoped API", "`"+string(l.typeName)+"` is only offered by Neon's branch-scoped endpoints; "+
			"set auth_api = \"branch\" in the provider block (or NEON_AUTH_API=branch) to list it.")
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	l.data.list(ctx, &l.settingsResource, l.typeName, req, stream, singletonOf(l.data))
}

// listOf is the list resource of a settings resource.
func listOf[A any, M any, PM settingsModel[M]](r settingsResource[A, M, PM]) list.ListResource {
	return &settingsList[A, M, PM]{r}
}
