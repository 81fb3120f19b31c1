package provider

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// The provider's private state: its keys, how values are stored there, and
// the versioned records of what a create found (a settings resource's
// values, an object taken over), which destroy restores.

// Private state keys. Values are JSON, as the framework requires.
const (
	// privateAuthProjectID records the auth_provider_project_id of the
	// integration a thing was created under, so that a later Read notices an
	// integration that was deleted and created again (which takes its users
	// and pending transfer with it).
	privateAuthProjectID = "auth_provider_project_id"
	// privateImported marks a user that was imported: its email and name
	// are unknown (null) until the configuration supplies them.
	privateImported = "imported"
	// privateUnconfirmed marks a user whose integration was deleted, or
	// deleted and created again, since the user was created: whether the
	// user survived is not known (no endpoint reads users), and the next
	// apply finds out (see auth_user_resource.go).
	privateUnconfirmed = "unconfirmed"
	// privatePlatformOwner records owned_by as it was when an ownership
	// transfer was requested: the platform's own value.
	privatePlatformOwner = "platform_owned_by"
	// privateFound records the values a settings resource found at
	// creation, which destroy restores (a foundRecord).
	privateFound = "found"
	// privateTakenOver records an object a create took over instead of
	// creating, because its branch already had it (a takeOverRecord):
	// destroy restores it as found instead of deleting it.
	// The key keeps the name that states already hold ("adopted", the
	// word before take-over was the house's): a build that looked under
	// another name would find no record and delete what it took over.
	privateTakenOver = "adopted"
)

// privateGetter and privateSetter are the methods of the framework's private
// state data, whose type is internal to the framework.
type privateGetter interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

type privateSetter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// getPrivateString returns a string stored with setPrivateString; "" when absent.
func getPrivateString(ctx context.Context, p privateGetter, key string, diags *diag.Diagnostics) string {
	raw, d := p.GetKey(ctx, key)
	diags.Append(d...)
	if len(raw) == 0 {
		return ""
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		diags.AddError("Unreadable private state",
			fmt.Sprintf("The provider's private state key %q holds %q, not a JSON string: %v. This is a bug in the provider; please report it.", key, raw, err))
		return ""
	}
	return s
}

// setPrivateString stores a string as JSON; "" removes the key.
func setPrivateString(ctx context.Context, p privateSetter, key, value string, diags *diag.Diagnostics) {
	var raw []byte
	if value != "" {
		var err error
		if raw, err = json.Marshal(value); err != nil {
			diags.AddError("Unwritable private state", fmt.Sprintf("Encoding the private state key %q: %v. This is a bug in the provider; please report it.", key, err))
			return
		}
	}
	diags.Append(p.SetKey(ctx, key, raw)...)
}

// foundVersion is the version of the record privateFound holds. Version 0,
// written before the record had a version, is the bare values object (the
// API value's JSON); version 1 wraps the same values as
// {"version":1,"values":{…}}.
const foundVersion = 1

// foundRecord is what privateFound holds: the values a settings resource
// found at creation, in the API's own shape (A, the reference's type of the
// setting), which is also how they are sent back on destroy. Field names
// are the API's, so a record of any release reads back as long as the API
// keeps them.
type foundRecord[A any] struct {
	Version int `json:"version"`
	Values  A   `json:"values"`
}

// encodeFound is the privateFound value of values.
func encodeFound[A any](values A) ([]byte, error) {
	return json.Marshal(foundRecord[A]{Version: foundVersion, Values: values})
}

// decodeFound reads a privateFound value of any version.
func decodeFound[A any](raw []byte) (A, error) {
	var probe struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(raw, &probe); err != nil {
		var zero A
		return zero, err
	}
	switch {
	case probe.Version == nil: // version 0: the bare values
		var v A
		return v, json.Unmarshal(raw, &v)
	case *probe.Version == foundVersion:
		var r foundRecord[A]
		return r.Values, json.Unmarshal(raw, &r)
	default:
		var zero A
		return zero, fmt.Errorf("version %d of the recorded values is newer than this provider reads (%d); upgrade the provider", *probe.Version, foundVersion)
	}
}

// takeOverVersion is the version of the record privateTakenOver holds.
const takeOverVersion = 1

// takeOverRecord is what privateTakenOver holds: the branch the object was
// inherited from ("" for one found whatever put it there: a trusted domain)
// and what the create found, in a shape of the resource's own (F), which
// destroy restores.
type takeOverRecord[F any] struct {
	Version int    `json:"version"`
	Parent  string `json:"parent"`
	Found   F      `json:"found"`
}

// recordTakeOver stores a take-over in private state.
func recordTakeOver[F any](ctx context.Context, p privateSetter, parent string, found F, diags *diag.Diagnostics) {
	raw, err := json.Marshal(takeOverRecord[F]{Version: takeOverVersion, Parent: parent, Found: found})
	if err != nil {
		diags.AddError("Unwritable private state", fmt.Sprintf("Encoding what was taken over: %v. This is a bug in the provider; please report it.", err))
		return
	}
	diags.Append(p.SetKey(ctx, privateTakenOver, raw)...)
}

// recordedTakeOver reads a take-over from private state; ok is false for an
// object this provider created (or imported).
func recordedTakeOver[F any](ctx context.Context, p privateGetter, diags *diag.Diagnostics) (rec takeOverRecord[F], ok bool) {
	raw, d := p.GetKey(ctx, privateTakenOver)
	diags.Append(d...)
	if len(raw) == 0 {
		return rec, false
	}
	if err := json.Unmarshal(raw, &rec); err != nil || rec.Version != takeOverVersion {
		diags.AddError("Unreadable private state",
			fmt.Sprintf("The record of what this resource took over at creation cannot be read (version %d, %v): upgrade the provider, "+
				"or remove the resource with `terraform state rm` and restore the inherited object by hand.", rec.Version, err))
		return rec, false
	}
	return rec, true
}
