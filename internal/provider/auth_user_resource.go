package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// The neon_auth_user resource: a user of a branch's Neon Auth, with its roles.

var (
	_ resource.ResourceWithImportState = (*authUserResource)(nil)
	_ resource.ResourceWithIdentity    = (*authUserResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*authUserResource)(nil)
)

// NewAuthUserResource is the neon_auth_user resource.
func NewAuthUserResource() resource.Resource {
	return &authUserResource{configured: configuredAs(typeAuthUser)}
}

type authUserResource struct {
	configured
}

type authUserModel struct {
	scopeModel
	ID     types.String `tfsdk:"id"`
	UserID types.String `tfsdk:"user_id"`
	Email  types.String `tfsdk:"email"`
	Name   types.String `tfsdk:"name"`
	Roles  types.List   `tfsdk:"roles"`
}

func (r *authUserResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A user of a branch's Neon Auth, for seed, test and service accounts: `POST …/branches/{branch_id}/auth/users` " +
			"or `POST /projects/auth/user`. No endpoint reads a user back. " +
			"Import with `<project_id>/<branch_id>/<user_id>`; `<project_id>/<user_id>` is the production branch's.",
		Attributes: withAttributes(scopeAttributes("whose Neon Auth holds the user", integrationAuthProvider), map[string]schema.Attribute{
			"id":      computedString("`<project_id>/<branch_id>/<user_id>`.", false),
			"user_id": computedString("Id of the user at the auth provider (the `id` column of `users_sync`).", false),
			"email": schema.StringAttribute{
				MarkdownDescription: "Email address of the user. Unique within the auth project. Required to create a user; " +
					"changing it replaces the user. No endpoint reads users back, so after an import it is null until the " +
					"configuration supplies it (filled in without replacing the user).",
				Optional:      true,
				PlanModifiers: []planmodifier.String{replaceUnlessImported()},
				Validators:    []validator.String{emailAddressValidator()},
			},
			"name": schema.StringAttribute{
				MarkdownDescription: "Display name, 1 to 255 characters. Changing it replaces the user (the API cannot update " +
					"users). Null after an import until the configuration supplies it.",
				Optional:      true,
				PlanModifiers: []planmodifier.String{replaceUnlessImported()},
				Validators:    []validator.String{stringvalidator.UTF8LengthBetween(1, 255)},
			},
			"roles": schema.ListAttribute{
				MarkdownDescription: "Roles of the user, such as `[\"admin\"]`, set with `PUT …/auth/users/{auth_user_id}/role`; " +
					"changing them updates the user in place. Needs `auth_api = \"branch\"`. Never read back.",
				ElementType: types.StringType,
				Optional:    true,
				Validators:  []validator.List{listvalidator.SizeAtLeast(1), listvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1))},
			},
		}),
	}
}

// userRules: roles exist only in the branch-scoped API.
var userRules = scopeRules{branchAttrs: []string{"roles"}}

func (r *authUserResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	r.planScope(ctx, userRules, req, resp)
	// No endpoint lists users, so only apply finds a user already there; a
	// destroy plan tells what it does with one taken over.
	r.planRestore(ctx, req, resp, "user", "Destroy leaves the user on the branch.")
	// email is optional only so that an imported user (whose email no
	// endpoint returns) plans no change without it; a new user needs one.
	if req.State.Raw.IsNull() && !req.Plan.Raw.IsNull() && !isConfigured(req.Config.Raw, "email") {
		resp.Diagnostics.AddAttributeError(path.Root("email"), "Missing email",
			"`email` is required to create a user: set the address the user signs in with, such as `email = \"ann@example.com\"`. "+
				"It may be left out only for a user that was imported.")
	}
	r.planConfirmation(ctx, req, resp)
}

// planConfirmation plans an update of a user marked unconfirmed (its
// integration was deleted, or deleted and created again): the apply sends
// the user's create again, and either it is made anew (a new user_id) or
// the API answers that it exists, and it is kept as it is.
func (r *authUserResource) planConfirmation(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() || len(resp.RequiresReplace) > 0 ||
		getPrivateString(ctx, req.Private, privateUnconfirmed, &resp.Diagnostics) == "" {
		return
	}
	var plan authUserModel
	resp.Diagnostics.Append(resp.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	what := "The Neon Auth integration this user was created under was deleted, or deleted and created again, outside " +
		"Terraform. Whether its users survived is not known: Neon keeps them when Neon Auth is disabled without delete_data " +
		"and enabled again, and no endpoint reads a user."
	if plan.Email.IsNull() {
		resp.Diagnostics.AddAttributeWarning(path.Root("email"), "Auth user not confirmed", what+" This user was imported without "+
			"its email, so it cannot be created again: set `email` to have the next apply create it, or keep it if it is still there.")
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("user_id"), types.StringUnknown())...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("id"), types.StringUnknown())...)
	resp.Diagnostics.AddWarning("Auth user to be confirmed", fmt.Sprintf("%s The apply creates the user %s again; if the API "+
		"answers that it exists, the user survived and is kept as it is, with its id.", what, plan.Email.ValueString()))
}

// userImport is the import id.
var userImport = importFormat{
	resourceType: typeAuthUser, parts: []string{"user_id"}, withBranch: true,
	example: "autumn-frost-12345678/br-quiet-leaf-12345678/1f0c5a2e-9b7d-4c1e-8a3f-2d6b7c8e9f01",
	note:    "The user id is the `id` column of the users_sync table.",
}

func (r *authUserResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer userImport.identifyCreated(ctx, resp)
	summary := r.unable("Create")
	plan, s, ok := beginIn[authUserModel](ctx, r.data, req.Plan, summary, fromIntegration, &resp.Diagnostics)
	if !ok || !r.data.requireBranch(ctx, s.ProjectID, s.BranchID, summary, &resp.Diagnostics) {
		return
	}
	email := plan.Email.ValueString()
	what := fmt.Sprintf("Creating the user %s in the %s integration of %s", email, s.AuthProvider, s.Scope)

	user, err := r.data.auth.CreateUser(ctx, s, email, plan.Name.ValueString())
	switch {
	case errors.Is(err, apiclient.ErrOutcomeUnknown):
		// No endpoint reads a user back, so the request is not sent again
		// blindly: it may have created the user.
		resp.Diagnostics.AddError(summary, apiErrorDetail(what, err)+"\n\n"+
			"The response was lost in transit, so the user may or may not have been created; the request was not sent again, "+
			"since no endpoint can read a user back. Run apply again: if it then fails because the email already exists, "+
			"the user was created. "+userImportHint(branchObjectID(s), email))
		return
	case errors.Is(err, apiclient.ErrConflict):
		r.takeOver(ctx, s, plan, apiErrorDetail(what, err), resp)
		return
	case err != nil:
		resp.Diagnostics.AddError(summary, r.data.explainFailure(ctx, s, what, err))
		return
	}
	if user.ID == "" {
		resp.Diagnostics.AddError(summary, what+": the API answered without a user id. "+userImportHint(branchObjectID(s), email))
		return
	}

	plan.ID = types.StringValue(branchObjectID(s, user.ID))
	plan.UserID = types.StringValue(user.ID)
	plan.recordScope(s)
	roles := plan.Roles
	plan.Roles = types.ListNull(types.StringType)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	r.recordIntegration(ctx, resp.Private, s, &resp.Diagnostics)
	// The user exists now; if its roles cannot be set, the state says so
	// (no roles) and the next apply tries again.
	if r.setRoles(ctx, s, user.ID, roles, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("roles"), roles)...)
	}
}

// takeOver follows a create refused because a user with the email exists:
// one the branch inherited from its parent is taken over, without its id (no
// endpoint finds a user by email), so it can be neither deleted nor given
// roles; anything else is refused with an import hint.
func (r *authUserResource) takeOver(ctx context.Context, s neonauth.Scope, plan authUserModel, refused string, resp *resource.CreateResponse) {
	summary, email := r.unable("Create"), plan.Email.ValueString()
	to := r.data.auth.MayTakeOver(ctx, s, neonauth.Object{Kind: neonauth.KindUser, Key: email})
	switch {
	case !to.Allowed():
		resp.Diagnostics.AddError(summary, refused+"\n\nA user with this email already exists in the auth project. "+takeOverRefusal(s, to)+" "+
			userImportHint(branchObjectID(s), email))
		return
	case !plan.Roles.IsNull():
		resp.Diagnostics.AddAttributeError(path.Root("roles"), summary,
			fmt.Sprintf("Branch %s was created from branch %s and inherited the user %s, but no endpoint tells a user's id, which "+
				"setting roles needs. Remove roles to take the user over as it is, or import it by id. %s",
				s.BranchID, to.Parent, email, userImportHint(branchObjectID(s), email)))
		return
	}
	plan.ID = types.StringValue(inheritedUserID(s, email))
	plan.UserID = types.StringNull()
	plan.recordScope(s)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	r.recordIntegration(ctx, resp.Private, s, &resp.Diagnostics)
	tookOver(ctx, resp.Private, &resp.Diagnostics, s, to.Parent, struct{}{}, "user "+email,
		fmt.Sprintf("whose Neon Auth (%s) the branch's is a copy of — no endpoint lists users, so a user on the copy counts as part of it", s.AuthProvider),
		"No endpoint tells an existing user's id, so user_id stays null and roles cannot be set; destroy leaves the user on the branch.")
}

// inheritedUserID is the id of a user taken over without its user id:
// `<project_id>/<branch_id>/email:<email>`.
func inheritedUserID(s neonauth.Scope, email string) string {
	return branchObjectID(s, "email:"+email)
}

// setRoles sends the planned roles of a user (nothing when they are null);
// false when that failed (an error diagnostic says why).
func (r *authUserResource) setRoles(ctx context.Context, s neonauth.Scope, userID string, roles types.List, diags *diag.Diagnostics) bool {
	if roles.IsNull() || roles.IsUnknown() {
		return true
	}
	if userID == "" {
		diags.AddAttributeError(path.Root("roles"), r.unable("Set")+" Roles",
			"This user was taken over from the branch's parent without its id (no endpoint tells a user's id), and setting roles "+
				"needs it. Import the user by id instead: "+userImportHint(branchObjectID(s), "<email>"))
		return false
	}
	var list []string
	diags.Append(roles.ElementsAs(ctx, &list, false)...)
	if diags.HasError() {
		return false
	}
	if err := r.data.auth.SetUserRoles(ctx, s, userID, list); err != nil {
		diags.AddError(r.unable("Set")+" Roles", r.data.explainFailure(ctx, s, fmt.Sprintf("Setting the roles of the user %s of %s", userID, s.Scope), err))
		return false
	}
	return true
}

// userImportHint tells how to import a user that exists at the auth provider
// but not in Terraform's state; branch is `<project_id>/<branch_id>`.
func userImportHint(branch, email string) string {
	return fmt.Sprintf("The user with email %[2]s exists at the auth provider. Find its id in the project database:\n\n"+
		"  SELECT id FROM <schema_name>.users_sync WHERE email = '%[2]s';\n\n"+
		"(<schema_name> is the schema_name attribute of the neon_auth_integration), then import it:\n\n"+
		"  terraform import <resource address, e.g. neon_auth_user.this> %[1]s/<user_id>\n\n"+
		"or add an import block with id = \"%[1]s/<user_id>\". Alternatively delete that user at the auth provider and apply again.",
		branch, email)
}

// Read keeps the state as it is: the API cannot read a user. Only the
// integration can be checked. If it is gone, or was deleted and created
// again, the sources disagree on what became of its users: Neon's docs say
// that disabling Neon Auth keeps its data (users among it) unless
// delete_data is set and that it can be enabled again without losing it,
// while a re-created Stack Auth integration is a new auth project. The
// user stays in state, marked unconfirmed, and the next apply finds out
// (confirmUser). A user whose branch or project is gone went with it.
func (r *authUserResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer userImport.identifyRead(ctx, req, resp)
	state, s, ok := beginIn[authUserModel](ctx, r.data, req.State, r.unable("Read"), fromIntegration, &resp.Diagnostics)
	if !ok {
		return
	}
	switch r.readOrigin(ctx, req.Private, resp.Private, s, &resp.Diagnostics) {
	case originWentWithBranch:
		tflog.Warn(ctx, "the branch of this auth user is gone, and the user with it; removing the user from state",
			map[string]any{"project_id": s.ProjectID, "branch_id": s.BranchID})
		resp.State.RemoveResource(ctx)
		return
	case originReplaced:
		tflog.Warn(ctx, "the integration this auth user was created under was deleted, or deleted and created again; whether "+
			"the user survived is not known: the next apply creates it again, or keeps it if it is still there",
			map[string]any{"project_id": s.ProjectID, "user_id": state.UserID.ValueString()})
		setPrivateString(ctx, resp.Private, privateUnconfirmed, "true", &resp.Diagnostics)
	}
	id := types.StringValue(branchObjectID(s, state.UserID.ValueString()))
	if state.UserID.IsNull() {
		id = types.StringValue(inheritedUserID(s, state.Email.ValueString()))
	}
	if (s.BranchID != "" && state.BranchID.IsNull()) ||
		state.AuthProvider.IsNull() || !state.ID.Equal(id) {
		state.recordScope(s)
		state.ID = id
		resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	}
}

// Update sets changed roles (in place) and stores the configured email and
// name after an import (any other change of them forces replacement).
func (r *authUserResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer userImport.identifyUpdated(ctx, resp)
	plan, s, ok := beginIn[authUserModel](ctx, r.data, req.Plan, r.unable("Update"), fromModel, &resp.Diagnostics)
	var prior authUserModel
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if !ok || resp.Diagnostics.HasError() {
		return
	}
	created := false
	if getPrivateString(ctx, req.Private, privateUnconfirmed, &resp.Diagnostics) != "" && !plan.Email.IsNull() {
		if created, ok = r.confirmUser(ctx, s, &plan, prior, &resp.Diagnostics); !ok {
			return
		}
		resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateUnconfirmed, nil)...)
		r.recordIntegration(ctx, resp.Private, s, &resp.Diagnostics)
	}
	if (created || !plan.Roles.Equal(prior.Roles)) && !r.setRoles(ctx, s, plan.UserID.ValueString(), plan.Roles, &resp.Diagnostics) {
		if created { // the new user is in the state, without roles: the next apply sets them
			plan.Roles = types.ListNull(types.StringType)
			resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		}
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateImported, nil)...)
}

// confirmUser sends the create of a user marked unconfirmed again: created
// anew, it gets its new id; refused because its email exists (409), it
// survived its integration's re-creation and keeps its id. ok is false when
// the create failed otherwise (an error diagnostic says why).
func (r *authUserResource) confirmUser(ctx context.Context, s neonauth.Scope, plan *authUserModel, prior authUserModel, diags *diag.Diagnostics) (created, ok bool) {
	email := plan.Email.ValueString()
	what := fmt.Sprintf("Creating the user %s again in the %s integration of %s, which was deleted or re-created", email, s.AuthProvider, s.Scope)
	user, err := r.data.auth.CreateUser(ctx, s, email, plan.Name.ValueString())
	switch {
	case errors.Is(err, apiclient.ErrConflict):
		plan.UserID, plan.ID = prior.UserID, prior.ID
		diags.AddWarning("Auth user kept", fmt.Sprintf("The user %s survived the re-creation of its integration on %s: the API "+
			"answered that it exists. It is kept as it is, with its id.", email, s.Scope))
		return false, true
	case errors.Is(err, apiclient.ErrOutcomeUnknown):
		diags.AddError(r.unable("Update"), apiErrorDetail(what, err)+"\n\nThe response was lost in transit, so the user may or may "+
			"not have been created; the request was not sent again. Run apply again: a user that exists is then kept.")
		return false, false
	case err != nil:
		diags.AddError(r.unable("Update"), r.data.explainFailure(ctx, s, what, err))
		return false, false
	case user.ID == "":
		diags.AddError(r.unable("Update"), what+": the API answered without a user id. "+userImportHint(branchObjectID(s), email))
		return false, false
	}
	plan.UserID = types.StringValue(user.ID)
	plan.ID = types.StringValue(branchObjectID(s, user.ID))
	return true, true
}

// Delete deletes the user. A 404 alone does not say what is missing (the
// project or the key's view of it, the integration, or the user);
// settleDelete asks neonauth's Absence: an integration that is there means
// the user is already deleted.
func (r *authUserResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	summary := r.unable("Delete")
	state, s, ok := beginIn[authUserModel](ctx, r.data, req.State, summary, fromModel, &resp.Diagnostics)
	if !ok {
		return
	}
	userID := state.UserID.ValueString()
	if _, takenOver := recordedTakeOver[struct{}](ctx, req.Private, &resp.Diagnostics); takenOver || resp.Diagnostics.HasError() {
		tflog.Info(ctx, "leaving the inherited user on the branch", map[string]any{"project_id": s.ProjectID, "branch_id": s.BranchID})
		return
	}
	err := r.data.auth.DeleteUser(ctx, s, userID)
	r.settleDelete(ctx, s, err, nil, fmt.Sprintf("Deleting the user %s of %s", userID, s.Scope), &resp.Diagnostics)
}

func (r *authUserResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = userImport.identitySchema()
}

func (r *authUserResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	v, ok := userImport.importState(ctx, &req, resp)
	if !ok {
		return
	}
	r.checkImportBranch(ctx, v, resp)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), importedID(v, v["user_id"]))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("email"), types.StringNull())...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), types.StringNull())...)
	setPrivateString(ctx, resp.Private, privateImported, "true", &resp.Diagnostics)
}
