package provider

import "strings"

// Type names of the provider's resources, data sources, list resources and
// actions, and the "Unable to …" summaries of their diagnostics.

// typeName is a type as configurations name it: "neon_auth_domain". One
// constant per type feeds its Metadata, import format and identity, the
// plan-time scope checks and its diagnostics; a data source or list
// resource of the same name shares the resource's. A settings kind names
// its type in its own declaration (settingsKind.typeName).
type typeName string

const (
	typeAuthIntegration       typeName = "neon_auth_integration"
	typeAuthIntegrations      typeName = "neon_auth_integrations"
	typeAuthSDKKeys           typeName = "neon_auth_sdk_keys"
	typeAuthOwnershipTransfer typeName = "neon_auth_ownership_transfer"
	typeAuthOAuthProvider     typeName = "neon_auth_oauth_provider"
	typeAuthOAuthProviders    typeName = "neon_auth_oauth_providers"
	typeAuthDomain            typeName = "neon_auth_domain"
	typeAuthDomains           typeName = "neon_auth_domains"
	typeAuthEmailServer       typeName = "neon_auth_email_server"
	typeAuthUser              typeName = "neon_auth_user"
	typeProjects              typeName = "neon_projects"
	typeAuthSendTestEmail     typeName = "neon_auth_send_test_email"
	typeAuthDataAPI           typeName = "neon_auth_data_api"
	typeAuthExternalJWKS      typeName = "neon_auth_external_jwks"
)

// titleWords are the words of type names that are not simply capitalized in
// a title.
var titleWords = map[string]string{"oauth": "OAuth", "sdk": "SDK", "api": "API", "jwks": "JWKS"}

// title is how diagnostics name the type: "Auth OAuth Provider" for
// neon_auth_oauth_provider.
func (t typeName) title() string {
	words := strings.Split(strings.TrimPrefix(string(t), "neon_"), "_")
	for i, w := range words {
		if special, ok := titleWords[w]; ok {
			words[i] = special
		} else {
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		}
	}
	return strings.Join(words, " ")
}

// nouns are the types a sentence names otherwise than by their words.
var nouns = map[typeName]string{typeAuthDomain: "trusted domain"}

// noun is how a sentence names an object of the type: "OAuth provider" for
// neon_auth_oauth_provider, "trusted domain" for neon_auth_domain.
func (t typeName) noun() string {
	if n, ok := nouns[t]; ok {
		return n
	}
	words := strings.Split(strings.TrimPrefix(string(t), "neon_auth_"), "_")
	for i, w := range words {
		if special, ok := titleWords[w]; ok {
			words[i] = special
		}
	}
	return strings.Join(words, " ")
}

// unable is the summary of a failed operation on the type: "Unable to
// Create Auth Domain".
func (t typeName) unable(op string) string {
	return "Unable to " + op + " " + t.title()
}
