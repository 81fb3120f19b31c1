package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// The neon_auth_ownership_transfer resource: the transfer of a Stack Auth
// project to its owner.

var (
	_ resource.ResourceWithModifyPlan = (*authOwnershipTransferResource)(nil)
)

// NewAuthOwnershipTransferResource is the neon_auth_ownership_transfer resource.
func NewAuthOwnershipTransferResource() resource.Resource {
	return &authOwnershipTransferResource{configured: configuredAs(typeAuthOwnershipTransfer)}
}

type authOwnershipTransferResource struct {
	configured
}

type authOwnershipTransferModel struct {
	scopeModel
	ID          types.String `tfsdk:"id"`
	URL         types.String `tfsdk:"url"`
	OwnedBy     types.String `tfsdk:"owned_by"`
	Transferred types.Bool   `tfsdk:"transferred"`
}

func (r *authOwnershipTransferResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Requests the transfer of the platform-managed Stack Auth project of the production branch to your " +
			"own account at the auth provider: `POST /projects/auth/transfer_ownership`. Confirm it in a browser with `url`; " +
			"`transferred` shows the result. Destroy only forgets the request. Not importable.",
		Attributes: withAttributes(stackAttributes("whose Neon Auth has the managed auth project", "`stack`, the only auth provider whose project can be transferred. Omitted: the integration's, which must be `stack`.", "The production branch, the only one whose managed auth project can be transferred; recorded at creation."), map[string]schema.Attribute{
			"id": computedString("`<project_id>/<branch_id>/<auth_provider>`.", false),
			"url": computedString("Confirmation link to open in a browser to complete the transfer. Sensitive: anyone "+
				"with it can claim the auth project. Print it with an output marked sensitive and `terraform output -raw`.", true),
			"owned_by": schema.StringAttribute{
				MarkdownDescription: "Current owner of the auth project as listed by the API, refreshed on every read.",
				Computed:            true,
			},
			"transferred": schema.BoolAttribute{
				MarkdownDescription: "`true` once `owned_by` differs from its value when the transfer was requested, that is " +
					"once the transfer was confirmed. Refreshed on every read.",
				Computed: true,
			},
		}),
	}
}

func (r *authOwnershipTransferResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	r.planScope(ctx, scopeRules{productionStack: true}, req, resp)
}

func (r *authOwnershipTransferResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	summary := r.unable("Create")
	plan, s, ok := beginStack[authOwnershipTransferModel](ctx, r.data, r.typeName, req.Plan, summary, &resp.Diagnostics)
	if !ok {
		return
	}
	what := fmt.Sprintf("Requesting the ownership transfer of the %s auth project of project %s", s.AuthProvider, s.ProjectID)

	transfer, err := r.data.auth.TransferOwnership(ctx, s)
	if err != nil {
		resp.Diagnostics.AddError(summary, r.data.explainFailure(ctx, s, what, err))
		return
	}
	if transfer.URL == "" {
		resp.Diagnostics.AddError(summary, what+": the API answered without a confirmation URL. Apply again to request a new one.")
		return
	}

	// owned_by now is the platform's value, the reference for transferred
	// (the request forgot the integration read before it).
	it, ok := r.readIntegration(ctx, s, summary, &resp.Diagnostics)
	if !ok {
		return
	}
	if it == nil {
		resp.Diagnostics.AddError(summary, fmt.Sprintf("The ownership transfer of project %s was requested, but its %s integration "+
			"is no longer listed, so the request went with it. Apply again once the integration exists.", s.ProjectID, s.AuthProvider))
		return
	}

	plan.recordScope(s)
	plan.ID = types.StringValue(branchObjectID(s, s.AuthProvider))
	plan.URL = types.StringValue(transfer.URL)
	plan.OwnedBy = types.StringValue(string(it.OwnedBy))
	plan.Transferred = types.BoolValue(false)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	setPrivateString(ctx, resp.Private, privatePlatformOwner, string(it.OwnedBy), &resp.Diagnostics)
	setPrivateString(ctx, resp.Private, privateAuthProjectID, it.AuthProviderProjectID, &resp.Diagnostics)
}

// Read refreshes owned_by and transferred from the integration. The request
// itself cannot be read: if the integration is gone or was re-created, the
// request went with it.
func (r *authOwnershipTransferResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	state, s, ok := beginIn[authOwnershipTransferModel](ctx, r.data, req.State, r.unable("Read"), fromModel, &resp.Diagnostics)
	if !ok {
		return
	}
	it, ok := r.readIntegration(ctx, s, r.unable("Read"), &resp.Diagnostics)
	if !ok {
		return
	}
	recordedProject := getPrivateString(ctx, req.Private, privateAuthProjectID, &resp.Diagnostics)
	if it == nil || (recordedProject != "" && recordedProject != it.AuthProviderProjectID) {
		tflog.Warn(ctx, "the integration of this ownership transfer request is gone, and the request with it; removing it from state",
			map[string]any{"project_id": s.ProjectID})
		resp.State.RemoveResource(ctx)
		return
	}
	platform := getPrivateString(ctx, req.Private, privatePlatformOwner, &resp.Diagnostics)
	if platform == "" {
		// Not recorded (a state written without it): the best reference
		// left is the value now.
		platform = string(it.OwnedBy)
		setPrivateString(ctx, resp.Private, privatePlatformOwner, platform, &resp.Diagnostics)
		setPrivateString(ctx, resp.Private, privateAuthProjectID, it.AuthProviderProjectID, &resp.Diagnostics)
	}
	state.recordScope(s)
	state.OwnedBy = types.StringValue(string(it.OwnedBy))
	state.Transferred = types.BoolValue(string(it.OwnedBy) != platform)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update is never called with a change: every input forces replacement.
func (r *authOwnershipTransferResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.State.Raw = req.Plan.Raw
}

// Delete only forgets the request: the API can neither cancel it nor undo a
// confirmed transfer.
func (r *authOwnershipTransferResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state authOwnershipTransferModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	tflog.Warn(ctx, "ownership transfer request removed from state; the API cannot cancel it, and a confirmed transfer stays in effect",
		map[string]any{"project_id": state.ProjectID.ValueString(), "transferred": state.Transferred.ValueBool()})
}
