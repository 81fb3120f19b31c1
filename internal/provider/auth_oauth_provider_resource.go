package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

var (
	_ resource.Resource                   = (*authOAuthProviderResource)(nil)
	_ resource.ResourceWithConfigure      = (*authOAuthProviderResource)(nil)
	_ resource.ResourceWithImportState    = (*authOAuthProviderResource)(nil)
	_ resource.ResourceWithValidateConfig = (*authOAuthProviderResource)(nil)
)

// oauthProviderIDs are the OAuth providers the platform supports.
var oauthProviderIDs = []string{"google", "github", "microsoft"}

// NewAuthOAuthProviderResource is the neon_auth_oauth_provider resource.
func NewAuthOAuthProviderResource() resource.Resource { return &authOAuthProviderResource{} }

type authOAuthProviderResource struct {
	configured
}

type authOAuthProviderModel struct {
	ID                    types.String `tfsdk:"id"`
	ProjectID             types.String `tfsdk:"project_id"`
	AuthProvider          types.String `tfsdk:"auth_provider"`
	ProviderID            types.String `tfsdk:"provider_id"`
	ClientID              types.String `tfsdk:"client_id"`
	ClientSecret          types.String `tfsdk:"client_secret"`
	ClientSecretWO        types.String `tfsdk:"client_secret_wo"`
	ClientSecretWOVersion types.Int64  `tfsdk:"client_secret_wo_version"`
	Type                  types.String `tfsdk:"type"`
}

func (r *authOAuthProviderResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_auth_oauth_provider"
}

func (r *authOAuthProviderResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "An OAuth sign-in provider (Google, GitHub or Microsoft) of a project's auth integration.\n\n" +
			"Without `client_id` and a client secret the provider uses the platform's shared keys (`type = \"shared\"`); " +
			"with them it uses your own OAuth app (`type = \"standard\"`, recommended for production).\n\n" +
			"Create calls `POST /projects/{project_id}/auth/oauth_providers`; read finds the provider in the list of " +
			"`GET /projects/{project_id}/auth/oauth_providers`; changing `client_id`, `client_secret` or " +
			"`client_secret_wo_version` calls `PATCH /projects/{project_id}/auth/oauth_providers/{provider_id}` in place " +
			"(a shared provider becomes standard); removing the credentials replaces the provider, since the API has no way " +
			"back from standard to shared; destroy calls `DELETE /projects/{project_id}/auth/oauth_providers/{provider_id}`.\n\n" +
			"Drift: a provider deleted outside Terraform is planned for creation again; credentials removed outside Terraform " +
			"(the API then lists it as `shared`) show as a change of `type` and are sent again. The API never returns " +
			"`client_id` or the secret, so a credential changed to another value outside Terraform cannot be detected.\n\n" +
			"Import with `<project_id>/<provider_id>`, such as `autumn-frost-12345678/google`. The credentials cannot be " +
			"read back: keep `client_id` and the secret in the configuration; the first apply after the import sends them " +
			"with an in-place update.\n\n" +
			"The secret can be given as `client_secret` (sensitive, stored in state) or, with Terraform 1.11 or later, as " +
			"the write-only `client_secret_wo` (never stored); with the latter, change `client_secret_wo_version` to send a new secret.",
		Attributes: map[string]schema.Attribute{
			"id":            computedString("`<project_id>/<provider_id>`.", false),
			"project_id":    projectIDAttribute("Id of the Neon project whose auth integration gets the OAuth provider."),
			"auth_provider": authProviderAttribute(),
			"provider_id": schema.StringAttribute{
				MarkdownDescription: "Which OAuth provider: `google`, `github` or `microsoft`. Changing it replaces the resource.",
				Required:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:          []validator.String{stringvalidator.OneOf(oauthProviderIDs...)},
			},
			"client_id": schema.StringAttribute{
				MarkdownDescription: "Client id of your own OAuth app. Requires `client_secret` or `client_secret_wo`. " +
					"Omit it (and the secret) to use the platform's shared keys. Changing it updates the provider in place; " +
					"removing it replaces the provider.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"client_secret": schema.StringAttribute{
				MarkdownDescription: "Client secret of your own OAuth app. Sensitive: stored in state, never shown. " +
					"Conflicts with `client_secret_wo`; requires `client_id`.",
				Optional:   true,
				Sensitive:  true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"client_secret_wo": schema.StringAttribute{
				MarkdownDescription: "Write-only client secret (Terraform 1.11 or later): sent to the API, never stored in plan " +
					"or state. Requires `client_id` and `client_secret_wo_version`; conflicts with `client_secret`. " +
					"A change of this value alone is not seen: change `client_secret_wo_version` to send it.",
				Optional:   true,
				Sensitive:  true,
				WriteOnly:  true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"client_secret_wo_version": schema.Int64Attribute{
				MarkdownDescription: "Version of `client_secret_wo`. Set it together with `client_secret_wo`, and change it " +
					"(for example increment it) whenever the secret changes: a change updates the provider in place with the current secret.",
				Optional:   true,
				Validators: []validator.Int64{int64validator.AlsoRequires(path.MatchRoot("client_secret_wo"))},
			},
			"type": schema.StringAttribute{
				MarkdownDescription: "`shared` (the platform's shared keys) or `standard` (your own credentials). Planned from " +
					"the configuration: `standard` when `client_id` is set, else `shared`. When the API reports another type " +
					"(for example after the credentials were removed outside Terraform), the plan shows the change and apply repairs it.",
				Computed: true,
				PlanModifiers: []planmodifier.String{
					oauthTypePlanModifier{},
					stringplanmodifier.RequiresReplaceIf(oauthTypeRequiresReplace,
						"The API cannot turn a standard provider back into a shared one: removing the credentials replaces it.",
						"The API cannot turn a standard provider back into a shared one: removing the credentials replaces it."),
				},
			},
		},
	}
}

// oauthTypePlanModifier plans `type` from the configuration: credentials mean
// `standard`, none `shared`. A refreshed type that differs from it (the
// credentials were removed outside Terraform) is then a visible change.
type oauthTypePlanModifier struct{}

func (oauthTypePlanModifier) Description(context.Context) string {
	return "`standard` when client_id is configured, else `shared`."
}

func (m oauthTypePlanModifier) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

func (oauthTypePlanModifier) PlanModifyString(ctx context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	var clientID types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("client_id"), &clientID)...)
	switch {
	case clientID.IsUnknown():
		resp.PlanValue = types.StringUnknown()
	case clientID.IsNull():
		resp.PlanValue = types.StringValue(apiclient.TypeShared)
	default:
		resp.PlanValue = types.StringValue(apiclient.TypeStandard)
	}
}

// oauthTypeRequiresReplace: only standard → shared needs a new provider.
func oauthTypeRequiresReplace(_ context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = req.StateValue.ValueString() == apiclient.TypeStandard && req.PlanValue.ValueString() == apiclient.TypeShared
}

// ValidateConfig checks that client_id and exactly one secret form go together.
func (r *authOAuthProviderResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg authOAuthProviderModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	secret, wo, clientID := isSet(cfg.ClientSecret), isSet(cfg.ClientSecretWO), isSet(cfg.ClientID)
	if secret && wo {
		resp.Diagnostics.AddAttributeError(path.Root("client_secret_wo"), "Conflicting client secret arguments",
			"Set either `client_secret` or the write-only `client_secret_wo` (with `client_secret_wo_version`), not both. Remove one of them.")
	}
	if clientID && !secret && !wo && !cfg.ClientID.IsUnknown() {
		resp.Diagnostics.AddAttributeError(path.Root("client_id"), "Missing client secret",
			"`client_id` needs a client secret: set `client_secret`, or the write-only `client_secret_wo` with `client_secret_wo_version`. "+
				"To use the platform's shared keys instead, remove `client_id`.")
	}
	if !clientID {
		for name, set := range map[string]bool{"client_secret": secret, "client_secret_wo": wo} {
			if set {
				resp.Diagnostics.AddAttributeError(path.Root(name), "Missing client_id",
					fmt.Sprintf("`%s` needs `client_id`: set the client id of the same OAuth app, or remove `%s` to use the platform's shared keys.", name, name))
			}
		}
	}
	if wo && !isSet(cfg.ClientSecretWOVersion) {
		resp.Diagnostics.AddAttributeError(path.Root("client_secret_wo_version"), "Missing client_secret_wo_version",
			"`client_secret_wo` is write-only, so Terraform cannot see when it changes: set `client_secret_wo_version` (for example `1`) "+
				"and change it whenever the secret changes.")
	}
}

// oauthImport is the import id: `<project_id>/<provider_id>`.
var oauthImport = importFormat{
	resourceType: "neon_auth_oauth_provider", parts: []string{"provider_id"},
	example: "autumn-frost-12345678/google",
}

// listedOAuthProvider finds an OAuth provider in the scope's shared list; it
// reports whether it is listed, and keeps what the list says of it.
func (d *providerData) listedOAuthProvider(s authScope, id string, found **apiclient.OAuthProvider) func(context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		ps, err := d.oauthProviders(ctx, s.Scope)
		i := slices.IndexFunc(ps, func(p apiclient.OAuthProvider) bool { return p.ID == id })
		if i >= 0 && found != nil {
			*found = &ps[i]
		}
		return i >= 0, err
	}
}

// oauthCredentials returns the client id and secret to send, from the plan
// and (for the write-only secret) the configuration. ok is false without
// credentials.
func oauthCredentials(ctx context.Context, plan authOAuthProviderModel, cfg attributeGetter, diags *diag.Diagnostics) (clientID, secret string, ok bool) {
	if plan.ClientID.IsNull() {
		return "", "", false
	}
	secret = plan.ClientSecret.ValueString()
	if plan.ClientSecret.IsNull() {
		secret = writeOnlyString(ctx, cfg, path.Root("client_secret_wo"), diags)
	}
	return plan.ClientID.ValueString(), secret, true
}

func (r *authOAuthProviderResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	plan, ok := begin[authOAuthProviderModel](ctx, r.data, req.Plan, &resp.Diagnostics)
	if !ok {
		return
	}
	clientID, secret, withCreds := oauthCredentials(ctx, plan, req.Config, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	s := r.data.scope(plan.ProjectID.ValueString(), plan.AuthProvider.ValueString())
	id := plan.ProviderID.ValueString()
	const summary = "Unable to Create Auth OAuth Provider"
	body := apiclient.AddOAuthProviderRequest{ID: id, ClientID: clientID, ClientSecret: secret}

	created, err := r.data.client.AddOAuthProvider(ctx, s.Scope, body)
	r.data.wroteOAuthProviders(s.Scope)
	if err == nil && created.Recovered {
		created, err = r.adoptLostCreate(ctx, s, created, body, withCreds, &resp.Diagnostics)
	}
	if err != nil {
		detail := r.data.explainFailure(ctx, s, fmt.Sprintf("Adding the %s OAuth provider to project %s", id, s.ProjectID), err)
		if errors.Is(err, apiclient.ErrConflict) {
			detail += importHint(fmt.Sprintf("Project %s already has the %s OAuth provider.", s.ProjectID, id),
				oauthImport.resourceType, compositeID(s.ProjectID, id))
		}
		resp.Diagnostics.AddError(summary, detail)
		return
	}
	plan.ID = types.StringValue(compositeID(s.ProjectID, id))
	plan.Type = types.StringValue(created.Type)
	plan.ClientSecretWO = types.StringNull()
	tflog.Debug(ctx, "created OAuth provider", map[string]any{"project_id": s.ProjectID, "provider_id": id, "type": created.Type})
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// adoptLostCreate follows a create whose response was lost but whose provider
// is listed. The list shows only the type, so a provider that does not have
// the planned type is given the configured credentials; one with credentials
// the configuration lacks is refused.
func (r *authOAuthProviderResource) adoptLostCreate(ctx context.Context, s authScope, listed *apiclient.OAuthProvider,
	body apiclient.AddOAuthProviderRequest, withCreds bool, diags *diag.Diagnostics,
) (*apiclient.OAuthProvider, error) {
	id := body.ID
	switch {
	case withCreds && listed.Type != apiclient.TypeStandard:
		updated, err := r.data.client.UpdateOAuthProvider(ctx, s.Scope, id,
			apiclient.UpdateOAuthProviderRequest{ClientID: body.ClientID, ClientSecret: body.ClientSecret})
		r.data.wroteOAuthProviders(s.Scope)
		if err != nil {
			return nil, fmt.Errorf("the create response was lost; the provider exists but setting its credentials failed: %w", err)
		}
		listed = updated
	case !withCreds && listed.Type != apiclient.TypeShared:
		return nil, fmt.Errorf("the create response was lost and the %s OAuth provider now exists with its own credentials (type %s), "+
			"which this configuration does not set; import it (id %s) or remove it and apply again: %w",
			id, listed.Type, compositeID(s.ProjectID, id), apiclient.ErrConflict)
	}
	diags.AddWarning("Auth OAuth provider created; response lost",
		fmt.Sprintf("The response to adding the %s OAuth provider to project %s was lost in transit, but the provider exists, "+
			"so it was adopted into the state (type %s).", id, s.ProjectID, listed.Type))
	return listed, nil
}

func (r *authOAuthProviderResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	state, ok := begin[authOAuthProviderModel](ctx, r.data, req.State, &resp.Diagnostics)
	if !ok {
		return
	}
	s := r.data.scope(state.ProjectID.ValueString(), state.AuthProvider.ValueString())
	id := state.ProviderID.ValueString()
	const summary = "Unable to Read Auth OAuth Provider"
	var found *apiclient.OAuthProvider
	if !r.data.readListed(ctx, s, r.data.listedOAuthProvider(s, id, &found), summary, "the "+id+" OAuth provider", resp) {
		return
	}
	if !knownValue(&resp.Diagnostics, summary, fmt.Sprintf("The type of the %s OAuth provider of project %s", id, s.ProjectID),
		found.Type, apiclient.TypeShared, apiclient.TypeStandard) {
		return
	}
	state.ID = types.StringValue(compositeID(s.ProjectID, id))
	state.Type = types.StringValue(found.Type)
	state.ClientSecretWO = types.StringNull()
	// client_id and the secret are never listed: the state keeps its values.
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update sends the configured credentials whenever the plan has them: a
// change of client_id, secret or secret version, or a type that drifted back
// to shared. Without credentials nothing reaches the API (removing them
// replaces the resource).
func (r *authOAuthProviderResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	plan, ok := begin[authOAuthProviderModel](ctx, r.data, req.Plan, &resp.Diagnostics)
	if !ok {
		return
	}
	clientID, secret, withCreds := oauthCredentials(ctx, plan, req.Config, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	s := r.data.scope(plan.ProjectID.ValueString(), plan.AuthProvider.ValueString())
	id := plan.ProviderID.ValueString()
	plan.ID = types.StringValue(compositeID(s.ProjectID, id))
	plan.ClientSecretWO = types.StringNull()
	if withCreds {
		updated, err := r.data.client.UpdateOAuthProvider(ctx, s.Scope, id, apiclient.UpdateOAuthProviderRequest{ClientID: clientID, ClientSecret: secret})
		r.data.wroteOAuthProviders(s.Scope)
		if err != nil {
			detail := r.data.explainFailure(ctx, s, fmt.Sprintf("Setting the credentials of the %s OAuth provider of project %s", id, s.ProjectID), err)
			if isNotFound(err) {
				detail += " If only the OAuth provider was deleted outside Terraform, run `terraform apply -refresh-only` and apply again to re-create it."
			}
			resp.Diagnostics.AddError("Unable to Update Auth OAuth Provider", detail)
			return
		}
		plan.Type = types.StringValue(updated.Type)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *authOAuthProviderResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	state, ok := begin[authOAuthProviderModel](ctx, r.data, req.State, &resp.Diagnostics)
	if !ok {
		return
	}
	s := r.data.scope(state.ProjectID.ValueString(), state.AuthProvider.ValueString())
	id := state.ProviderID.ValueString()
	err := r.data.client.DeleteOAuthProvider(ctx, s.Scope, id)
	r.data.wroteOAuthProviders(s.Scope)
	r.data.settleDelete(ctx, s, err, r.data.listedOAuthProvider(s, id, nil), "Unable to Delete Auth OAuth Provider",
		fmt.Sprintf("Deleting the %s OAuth provider of project %s", id, s.ProjectID), &resp.Diagnostics)
}

func (r *authOAuthProviderResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	v, ok := oauthImport.importState(ctx, req, resp)
	if !ok {
		return
	}
	if !slices.Contains(oauthProviderIDs, v["provider_id"]) {
		resp.Diagnostics.AddError("Invalid import id",
			fmt.Sprintf("Expected %s with provider_id one of %s, such as `%s`; got %q.",
				oauthImport.usage(), strings.Join(oauthProviderIDs, ", "), oauthImport.example, req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), compositeID(v["project_id"], v["provider_id"]))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("auth_provider"), apiclient.AuthProviderStack)...)
}
