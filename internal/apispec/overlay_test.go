package apispec

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
	"testing/fstest"
)

func TestUnitMergePatchFollowsRFC7386(t *testing.T) {
	target := map[string]any{"a": "b", "c": map[string]any{"d": "e", "f": "g"}, "l": []any{1.0}}
	patch := map[string]any{"a": "z", "c": map[string]any{"f": nil, "h": "i"}, "l": []any{2.0}, "n": map[string]any{"o": "p"}}
	got := mergePatch(target, patch)
	want := map[string]any{"a": "z", "c": map[string]any{"d": "e", "h": "i"}, "l": []any{2.0}, "n": map[string]any{"o": "p"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mergePatch = %v, want %v", got, want)
	}
}

func TestUnitAnOverlayWithoutItsSourceIsRefused(t *testing.T) {
	fsys := fstest.MapFS{"overlays/01.json": {Data: []byte(`{"facts":["x"],"patch":{"info":{"title":"t"}}}`)}}
	if _, err := withOverlays([]byte(`{"info":{}}`), fsys); err == nil {
		t.Fatal("an overlay without a source was applied")
	}
	fsys["overlays/01.json"] = &fstest.MapFile{Data: []byte(`{"source":"s","facts":["x"],"patch":{"info":{"title":"t"}}}`)}
	got, err := withOverlays([]byte(`{"info":{}}`), fsys)
	if err != nil || string(got) != `{"info":{"title":"t"}}` {
		t.Fatalf("withOverlays = %s, %v", got, err)
	}
}

// The overlays of Part B of the notes are in force.
func TestTheReferenceCarriesTheChangesAfter20260713(t *testing.T) {
	doc, err := Document()
	if err != nil {
		t.Fatal(err)
	}
	test := doc.Paths.Find("/projects/{project_id}/branches/{branch_id}/auth/email_provider/test")
	if test == nil || test.Post == nil || test.Post.OperationID != "sendNeonAuthEmailProviderTest" {
		t.Fatal("POST …/auth/email_provider/test is missing")
	}
	old := doc.Paths.Find("/projects/{project_id}/branches/{branch_id}/auth/send_test_email")
	if old == nil || !old.Post.Deprecated {
		t.Error("POST …/auth/send_test_email is not deprecated")
	}
	if req := old.Post.RequestBody.Value.Content.Get("application/json").Schema; req.Ref != "" || len(req.Value.Required) != 7 {
		t.Errorf("send_test_email's request is not the inline object with seven required fields: ref %q, required %v", req.Ref, req.Value.Required)
	}
	if got := doc.Components.Schemas["StandardEmailServer"].Value.Required; !reflect.DeepEqual(got, []string{"type"}) {
		t.Errorf("StandardEmailServer (the write shape) requires %v, want only the discriminator", got)
	}
	for _, p := range []string{"/projects/{project_id}/branches/{branch_id}/auth/email_provider", "/projects/{project_id}/auth/email_server"} {
		item := doc.Paths.Find(p)
		for _, op := range []string{http.MethodGet, http.MethodPatch} {
			ref := item.GetOperation(op).Responses.Status(200).Value.Content.Get("application/json").Schema.Ref
			if ref != "#/components/schemas/NeonAuthEmailServerConfigResponse" {
				t.Errorf("%s %s answers %q", op, p, ref)
			}
		}
	}
	if doc.Paths.Find("/projects/{project_id}/branches/{branch_id}/auth/plugins/phone_number") != nil ||
		doc.Paths.Find("/projects/{project_id}/branches/{branch_id}/auth/plugins/phone-number").Patch == nil {
		t.Error("the phone-number plugin is not at GET/PATCH …/plugins/phone-number")
	}
	enum, _ := json.Marshal(doc.Components.Schemas["NeonAuthSupportedAuthProvider"].Value.Enum)
	if string(enum) != `["mock","stack","better_auth"]` {
		t.Errorf("auth providers = %s", enum)
	}
}

// The write shape takes a partial standard configuration; the response shape
// needs all six fields, the password blank.
func TestTheEmailProviderShapesSplit(t *testing.T) {
	const path = "/api/v2/projects/p-1/branches/br-1/auth/email_provider"
	full := `{"type":"standard","host":"smtp.example.com","port":587,"username":"u","password":"","sender_email":"a@example.com","sender_name":"A"}`
	if got := send(t, fixedHandler(http.StatusOK, full), "PATCH", path, `{"type":"standard","port":2525}`, true); len(got) != 0 {
		t.Errorf("a partial update: violations = %v", got)
	}
	got := send(t, fixedHandler(http.StatusOK, `{"type":"standard","port":2525}`), "GET", path, "", true)
	wantViolations(t, got, "response", `property "host" is missing`)
	got = send(t, fixedHandler(http.StatusOK, full), "PATCH", path, `{"host":"smtp.example.com"}`, true)
	wantViolations(t, got, "request", "request body")
	if got := send(t, fixedHandler(http.StatusOK, `{"type":"shared"}`), "GET", path, "", true); len(got) != 0 {
		t.Errorf("a shared configuration: violations = %v", got)
	}
}
