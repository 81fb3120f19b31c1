package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/function"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// The canonical_origin function: the canonical form of a domain, as the
// whitelist compares them.

var _ function.Function = (*canonicalOriginFunction)(nil)

// NewCanonicalOriginFunction is provider::neon::canonical_origin.
func NewCanonicalOriginFunction() function.Function { return &canonicalOriginFunction{} }

// canonicalOriginFunction returns the canonical form of a trusted domain, the
// form in which neon_auth_domain and neon_auth_domains compare domains (the
// same code, apiclient.CanonicalOrigin).
type canonicalOriginFunction struct{}

func (f *canonicalOriginFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "canonical_origin"
}

func (f *canonicalOriginFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "The canonical form of a trusted domain",
		MarkdownDescription: "Returns a trusted domain in the canonical form in which `neon_auth_domain` and " +
			"`neon_auth_domains` compare trusted domains and in which the API lists them: the scheme in lower case, for " +
			"`https://` and `http://` the host in lower case, and no trailing slash. Useful as a `for_each` key and to " +
			"check a module's inputs. Fails, naming the argument, on anything `neon_auth_domain` refuses (a path on an " +
			"`https://` origin, a missing scheme, `javascript:` and the like). It sends no request and needs no API key, " +
			"except on OpenTofu before 1.11, which configures the provider to call its functions.",
		Parameters: []function.Parameter{
			function.StringParameter{
				Name: "url",
				MarkdownDescription: "A trusted domain: an `https://` or `http://` origin (a host, which may hold `*` " +
					"wildcards, and an optional port), such as `https://App.Example.com/`, or a native app's own scheme, " +
					"such as `myapp://callback`.",
			},
		},
		Return: function.StringReturn{},
	}
}

func (f *canonicalOriginFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var url string
	resp.Error = function.ConcatFuncErrors(req.Arguments.Get(ctx, &url))
	if resp.Error != nil {
		return
	}
	canonical, err := apiclient.CanonicalOrigin(url)
	if err != nil {
		// No final period: Terraform adds one.
		resp.Error = function.NewArgumentFuncError(0, fmt.Sprintf(
			"The url argument %q %s. Pass an origin such as \"https://app.example.com\"", url, err))
		return
	}
	resp.Error = function.ConcatFuncErrors(resp.Result.Set(ctx, canonical))
}
