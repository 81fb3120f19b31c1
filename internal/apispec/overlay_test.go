package apispec

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
	"testing/fstest"
)

// Each overlay is merged as RFC 7386 says: the examples of its Appendix A,
// each given to withOverlays as the document and one overlay's patch. An
// overlay patches the document, an object, with an object; the examples
// whose original or patch is not one are refused.
func TestUnitOverlaysMergeAsRFC7386Says(t *testing.T) {
	for _, c := range []struct{ original, patch, result string }{
		{`{"a":"b"}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"b"}`, `{"b":"c"}`, `{"a":"b","b":"c"}`},
		{`{"a":"b"}`, `{"a":null}`, `{}`},
		{`{"a":"b","b":"c"}`, `{"a":null}`, `{"b":"c"}`},
		{`{"a":["b"]}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"c"}`, `{"a":["b"]}`, `{"a":["b"]}`},
		{`{"a":{"b":"c"}}`, `{"a":{"b":"d","c":null}}`, `{"a":{"b":"d"}}`},
		{`{"a":[{"b":"c"}]}`, `{"a":[1]}`, `{"a":[1]}`},
		{`["a","b"]`, `["c","d"]`, ""},
		{`{"a":"b"}`, `["c"]`, ""},
		{`{"a":"foo"}`, `null`, ""},
		{`{"a":"foo"}`, `"bar"`, ""},
		{`{"e":null}`, `{"a":1}`, `{"e":null,"a":1}`},
		{`[1,2]`, `{"a":"b","c":null}`, ""},
		{`{}`, `{"a":{"bb":{"ccc":null}}}`, `{"a":{"bb":{}}}`},
	} {
		fsys := fstest.MapFS{"overlays/01.json": {Data: []byte(`{"source":"RFC 7386, Appendix A","facts":["an example"],"patch":` + c.patch + `}`)}}
		got, err := withOverlays([]byte(c.original), fsys)
		if c.result == "" {
			if err == nil {
				t.Errorf("%s patched with %s = %s, want it refused", c.original, c.patch, got)
			}
			continue
		}
		if err != nil || !jsonEqual(t, got, c.result) {
			t.Errorf("%s patched with %s = %s, %v; want %s", c.original, c.patch, got, err, c.result)
		}
	}
}

// Overlays apply in the order of their names: a later one wins.
func TestUnitOverlaysApplyInNameOrder(t *testing.T) {
	fsys := fstest.MapFS{
		"overlays/02-second.json": {Data: []byte(`{"source":"s","facts":["x"],"patch":{"info":{"title":"second","version":"2"}}}`)},
		"overlays/01-first.json":  {Data: []byte(`{"source":"s","facts":["x"],"patch":{"info":{"title":"first","summary":"1"}}}`)},
	}
	got, err := withOverlays([]byte(`{"info":{}}`), fsys)
	if err != nil || !jsonEqual(t, got, `{"info":{"title":"second","summary":"1","version":"2"}}`) {
		t.Fatalf("withOverlays = %s, %v", got, err)
	}
}

// jsonEqual reports whether two JSON texts hold the same value.
func jsonEqual(t *testing.T, a []byte, b string) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal([]byte(b), &vb); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(va, vb)
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
