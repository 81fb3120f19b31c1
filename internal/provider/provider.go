// Package provider implements the Terraform provider for the auth
// integration of Neon projects.
package provider

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// Environment variables the provider reads when an argument is not set.
const (
	envAPIKey          = "NEON_API_KEY"
	envBaseURL         = "NEON_API_BASE_URL"
	envRetryTimeout    = "NEON_RETRY_TIMEOUT"
	envAuthAPI         = "NEON_AUTH_API"
	envSharedRateLimit = "NEON_SHARED_RATE_LIMIT"
	userAgentComponent = "terraform-provider-neon"
)

var (
	_ provider.Provider                  = (*neonProvider)(nil)
	_ provider.ProviderWithFunctions     = (*neonProvider)(nil)
	_ provider.ProviderWithListResources = (*neonProvider)(nil)
	_ provider.ProviderWithActions       = (*neonProvider)(nil)
)

// New returns the provider factory for a given version.
func New(version string) func() provider.Provider {
	return NewWithHTTPClient(version, nil)
}

// NewWithHTTPClient is New with the HTTP client every API request goes
// through (cloned, never mutated); nil is New's own, over a clone of
// http.DefaultTransport. The acceptance tests (internal/acctest) pass one
// that checks the traffic against the API reference on its way, or counts
// it.
func NewWithHTTPClient(version string, httpClient *http.Client) func() provider.Provider {
	return func() provider.Provider {
		return &neonProvider{version: version, httpClient: httpClient}
	}
}

type neonProvider struct {
	version    string
	httpClient *http.Client
}

type neonProviderModel struct {
	APIKey                 types.String `tfsdk:"api_key"`
	BaseURL                types.String `tfsdk:"base_url"`
	MaxRetries             types.Int64  `tfsdk:"max_retries"`
	RequestsPerMinute      types.Int64  `tfsdk:"requests_per_minute"`
	RouteRequestsPerSecond types.Int64  `tfsdk:"route_requests_per_second"`
	RetryTimeout           types.String `tfsdk:"retry_timeout"`
	AuthAPI                types.String `tfsdk:"auth_api"`
	SharedRateLimit        types.Bool   `tfsdk:"shared_rate_limit"`
	InheritedAuth          types.String `tfsdk:"inherited_auth"`
	RestoreOnDestroy       types.Bool   `tfsdk:"restore_on_destroy"`
}

func (p *neonProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "neon"
	resp.Version = p.version
}

func (p *neonProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Manages Neon Auth on the branches of Neon projects through the Neon platform API v2: Better Auth " +
			"integrations with their sign-in methods, plugins, webhooks, OAuth providers, redirect domains, email server and users; " +
			"the Stack Auth integrations of the project-level API with their SDK keys and ownership transfer; and what puts the " +
			"tokens to work: the Data API of a branch's database, and the JWKS of external identity providers a project trusts.",
		Attributes: map[string]schema.Attribute{
			"auth_api": schema.StringAttribute{
				MarkdownDescription: "Which generation of Neon Auth endpoints to use: `\"branch\"` (the default), the " +
					"branch-scoped endpoints, which reach any branch and are where new features are; or `\"project\"`, the project-level " +
					"endpoints Neon has deprecated, which reach only the production branch. Falls back to `" +
					envAuthAPI + "`. Switching a configuration from one to the other replaces nothing.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.OneOf(authAPIProject, authAPIBranch)},
			},
			"inherited_auth":     inheritedAuthAttribute(),
			"restore_on_destroy": restoreOnDestroyAttribute(),
			"api_key": schema.StringAttribute{
				MarkdownDescription: "Neon API key: a personal, organization or project-scoped key. " +
					"Falls back to the `" + envAPIKey + "` environment variable. A project-scoped key can manage only its own project.",
				Optional:  true,
				Sensitive: true,
			},
			"base_url": schema.StringAttribute{
				MarkdownDescription: "Base URL of the platform API, ending in `/api/v2/`. Falls back to `" + envBaseURL +
					"`, then to `" + apiclient.DefaultBaseURL + "`. A URL whose path does not end in `/api/v2/` is refused. Plain " +
					"`http://` is accepted only for loopback hosts (`localhost`, `127.0.0.0/8`, `[::1]`: a local emulator), so that " +
					"the API key never travels in clear; an emulator on another host serves `https://` (`neon-emulator -tls`), " +
					"trusted through `SSL_CERT_FILE`.",
				Optional:   true,
				Validators: []validator.String{baseURLValidator()},
			},
			"max_retries": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("How many requests one operation may send again after its first: after a %s, "+
					"a server error or lost response of a read, or a write sent again after reading back that it was not applied. "+
					"A %s (the account's rate limit) is not counted: it is retried, at a pace the provider lowers until the API stops "+
					"refusing, for as long as `retry_timeout` lasts. Default `%d`; `0` sends every request once.",
					apiclient.RetriedStatuses(false, "or"), apiclient.RetriedStatuses(true, "or"), apiclient.DefaultMaxRetries),
				Optional:   true,
				Validators: []validator.Int64{int64validator.Between(0, 20)},
			},
			"retry_timeout": schema.StringAttribute{
				MarkdownDescription: fmt.Sprintf("How long one operation may take with its retries and waits, as a duration such as "+
					"`90s` or `10m`. No retry starts that would end later; a %s is retried until it runs out. Falls back to `%s`, then `%s`.",
					apiclient.RetriedStatuses(true, "or"), envRetryTimeout, apiclient.DefaultTimeout),
				Optional:   true,
				Validators: []validator.String{durationValidator(time.Second, 24*time.Hour)},
			},
			"requests_per_minute": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("Client-side cap on requests per minute for the account. Default `%d`, "+
					"the documented account limit. The provider never sends more in any minute and goes as fast as the account "+
					"shows that it allows (see \"Rate limits\" on the provider's page); after a 429 caused by other clients it "+
					"paces itself lower (honouring `Retry-After`) and climbs back as requests succeed, so several runs on one "+
					"account settle on shares of it. Lower it to leave room for other clients of the account.", apiclient.DefaultAccountRequestsPerMinute),
				Optional:   true,
				Validators: []validator.Int64{int64validator.Between(1, 100000)},
			},
			"shared_rate_limit": schema.BoolAttribute{
				MarkdownDescription: "Share one account rate limit with the other runs of this provider on this machine (Terragrunt " +
					"`run-all`, parallel workspaces, several CI jobs on one runner), so that together they stay under " +
					"`requests_per_minute` instead of each pacing itself to all of it. The shared budget follows the strictest " +
					"reading of the limits, so that together the runs meet no 429 however Neon counts. The runs coordinate " +
					"through a lock file under the user's cache directory, one per API address and key (named by a hash; the " +
					"key is stored nowhere); a run that is killed never blocks the others. When the file cannot be used the run " +
					"paces itself alone and says so in a warning. Default `false`; falls back to `" + envSharedRateLimit +
					"` (`true` or `false`).",
				Optional: true,
			},
			"route_requests_per_second": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("Client-side cap on requests per second for one route. Default `%d`, "+
					"the documented burst limit, which every reading of the limits allows.", apiclient.DefaultRouteRequestsPerSecond),
				Optional:   true,
				Validators: []validator.Int64{int64validator.Between(1, 10000)},
			},
		},
	}
}

// Configure builds the API client from the provider block and hands it to
// every kind of type: resources, data sources, ephemeral resources, list
// resources and actions. While a provider argument is still unknown (an API
// key from a resource not yet created) they get a providerData without a
// client, which says so when they need one.
func (p *neonProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var cfg neonProviderModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var data *providerData
	if name, unknown := cfg.unknownAttribute(); unknown {
		tflog.Debug(ctx, "provider configuration not yet known; deferring client creation", map[string]any{"attribute": name})
		data = &providerData{pending: name}
	} else if data = p.configured(cfg, req.TerraformVersion, &resp.Diagnostics); data == nil {
		return
	}
	resp.ResourceData = data
	resp.DataSourceData = data
	resp.EphemeralResourceData = data
	resp.ListResourceData = data
	resp.ActionData = data
}

// unknownAttribute names a provider argument that is not known yet.
func (cfg neonProviderModel) unknownAttribute() (string, bool) {
	for _, a := range []struct {
		name string
		v    interface{ IsUnknown() bool }
	}{
		{"api_key", cfg.APIKey}, {"base_url", cfg.BaseURL}, {"max_retries", cfg.MaxRetries},
		{"requests_per_minute", cfg.RequestsPerMinute}, {"route_requests_per_second", cfg.RouteRequestsPerSecond},
		{"retry_timeout", cfg.RetryTimeout}, {"auth_api", cfg.AuthAPI}, {"shared_rate_limit", cfg.SharedRateLimit},
		{"inherited_auth", cfg.InheritedAuth}, {"restore_on_destroy", cfg.RestoreOnDestroy},
	} {
		if a.v.IsUnknown() {
			return a.name, true
		}
	}
	return "", false
}

// clientSettings are the provider block's arguments with their environment
// fallbacks applied and checked.
type clientSettings struct {
	apiKey, baseURL string
	family          apiclient.Family
	retryTimeout    time.Duration
	shared          bool
	inherited       string
	restore         bool
}

// clientSettingsFrom resolves and checks the arguments; false when a diagnostic
// says what is wrong.
func clientSettingsFrom(cfg neonProviderModel, diags *diag.Diagnostics) (clientSettings, bool) {
	s := clientSettings{apiKey: stringOrEnv(cfg.APIKey, envAPIKey), baseURL: stringOrEnv(cfg.BaseURL, envBaseURL), family: apiclient.FamilyBranch}
	if s.apiKey == "" {
		diags.AddAttributeError(path.Root("api_key"), "Missing Neon API key",
			"The provider needs an API key to call the Neon API. Set `api_key` in the provider block "+
				"(for example from a variable marked sensitive) or export the "+envAPIKey+" environment variable. "+
				"Keys are created in the Neon console under account or organization settings.")
		return s, false
	}
	if _, err := apiclient.ParseBaseURL(s.baseURL); err != nil {
		addBaseURLError(diags, cfg.BaseURL, err)
		return s, false
	}
	switch api := stringOrEnv(cfg.AuthAPI, envAuthAPI); api {
	case "", authAPIBranch:
	case authAPIProject:
		s.family = apiclient.FamilyProject
	default:
		diags.AddAttributeError(path.Root("auth_api"), "Invalid "+envAuthAPI,
			fmt.Sprintf("%s must be %q or %q, got %q.", envAuthAPI, authAPIProject, authAPIBranch, api))
		return s, false
	}
	switch s.inherited = stringOrEnv(cfg.InheritedAuth, envInheritedAuth); s.inherited {
	case "":
		s.inherited = inheritedTakeOver
	case inheritedTakeOver, inheritedRefuse:
	default:
		diags.AddAttributeError(path.Root("inherited_auth"), "Invalid "+envInheritedAuth,
			fmt.Sprintf("%s must be %q or %q, got %q.", envInheritedAuth, inheritedTakeOver, inheritedRefuse, s.inherited))
		return s, false
	}
	var err error
	if s.retryTimeout, err = durationOrEnv(cfg.RetryTimeout, envRetryTimeout); err != nil {
		diags.AddAttributeError(path.Root("retry_timeout"), "Invalid retry_timeout", err.Error())
		return s, false
	}
	if s.shared, err = boolOrEnv(cfg.SharedRateLimit, envSharedRateLimit, "shared_rate_limit", false); err != nil {
		diags.AddAttributeError(path.Root("shared_rate_limit"), "Invalid "+envSharedRateLimit, err.Error())
		return s, false
	}
	if s.restore, err = boolOrEnv(cfg.RestoreOnDestroy, envRestoreOnDestroy, "restore_on_destroy", true); err != nil {
		diags.AddAttributeError(path.Root("restore_on_destroy"), "Invalid "+envRestoreOnDestroy, err.Error())
		return s, false
	}
	return s, true
}

// addBaseURLError reports a refused base URL where it was set: on base_url
// in the provider block, or, when the block has none, on the environment
// variable it came from.
func addBaseURLError(diags *diag.Diagnostics, configured types.String, err error) {
	if !configured.IsNull() && configured.ValueString() != "" {
		diags.AddAttributeError(path.Root("base_url"), "Invalid Neon API base URL", err.Error())
		return
	}
	diags.AddError("Invalid "+envBaseURL,
		fmt.Sprintf("The base URL comes from the environment variable %s (the provider block sets no base_url): %s "+
			"Correct %s, or unset it to use %s.", envBaseURL, err.Error(), envBaseURL, apiclient.DefaultBaseURL))
}

// configured is the providerData of a known provider block: the Neon Auth
// service over its client; nil when a diagnostic says why there is none.
func (p *neonProvider) configured(cfg neonProviderModel, terraformVersion string, diags *diag.Diagnostics) *providerData {
	set, ok := clientSettingsFrom(cfg, diags)
	if !ok {
		return nil
	}
	logger := tflogLogger{secrets: []string{set.apiKey}}
	client, err := apiclient.New(apiclient.Options{
		BaseURL:    set.baseURL,
		APIKey:     set.apiKey,
		HTTPClient: p.httpClient,
		UserAgent:  fmt.Sprintf("%s/%s (terraform/%s)", userAgentComponent, p.version, terraformVersion),
		Retry:      apiclient.RetryPolicy{MaxRetries: retriesFromConfig(cfg.MaxRetries), Timeout: set.retryTimeout},
		RateLimit:  rateLimit(cfg, set.shared),
		Logger:     logger,
	})
	if err != nil {
		diags.AddError("Unable to create Neon API client", err.Error())
		return nil
	}
	if _, err := client.SharedAccountLimit(); err != nil {
		diags.AddAttributeWarning(path.Root("shared_rate_limit"), "Rate limit not shared with other runs",
			"This run paces itself alone, as if shared_rate_limit were false: "+err.Error()+". "+
				"Other runs on this machine are not counted, so together they may meet 429s (which are retried).")
	}
	maxAge := neonauth.DefaultReadMaxAge
	if machineryIsOff("sharing") {
		maxAge = 0
	}
	return &providerData{restore: set.restore, auth: neonauth.New(client, neonauth.Options{
		Family:           set.family,
		ReadMaxAge:       maxAge,
		RefuseInherited:  set.inherited == inheritedRefuse,
		UnbatchedDeletes: machineryIsOff("batching"),
		Logger:           logger,
	})}
}

// rateLimit is the client's pacing from the provider block.
func rateLimit(cfg neonProviderModel, shared bool) apiclient.RateLimit {
	if machineryIsOff("pacing") {
		return apiclient.RateLimit{RequestsPerMinute: -1, RouteRequestsPerSecond: -1}
	}
	return apiclient.RateLimit{
		RequestsPerMinute:      int(cfg.RequestsPerMinute.ValueInt64()),
		RouteRequestsPerSecond: int(cfg.RouteRequestsPerSecond.ValueInt64()),
		Shared:                 shared,
	}
}

// retriesFromConfig maps the optional max_retries to the client's policy,
// where 0 means "default" and a negative value means "none".
func retriesFromConfig(v types.Int64) int {
	if v.IsNull() {
		return 0
	}
	if v.ValueInt64() == 0 {
		return -1
	}
	return int(v.ValueInt64())
}

func stringOrEnv(v types.String, env string) string {
	if !v.IsNull() && v.ValueString() != "" {
		return v.ValueString()
	}
	return os.Getenv(env)
}

// durationOrEnv reads a duration argument, or its environment variable; 0
// when neither is set (the client's default then applies).
func durationOrEnv(v types.String, env string) (time.Duration, error) {
	raw := stringOrEnv(v, env)
	if raw == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(raw)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a positive duration such as \"90s\" or \"10m\" (from %s)", raw, sourceName(v, env))
	}
	return d, nil
}

// boolOrEnv reads the bool argument attr, or its environment variable env
// ("true", "false", "1", "0"); dflt when neither is set.
func boolOrEnv(v types.Bool, env, attr string, dflt bool) (bool, error) {
	if !v.IsNull() {
		return v.ValueBool(), nil
	}
	raw := strings.TrimSpace(os.Getenv(env))
	if raw == "" {
		return dflt, nil
	}
	b, err := strconv.ParseBool(raw)
	if err != nil {
		return dflt, fmt.Errorf("the %s environment variable is %q; set it to \"true\" or \"false\", or set %s in the provider block", env, raw, attr)
	}
	return b, nil
}

func sourceName(v types.String, env string) string {
	if !v.IsNull() && v.ValueString() != "" {
		return "the provider block"
	}
	return "the " + env + " environment variable"
}

// servedType is one type the provider serves: a resource (with its list
// resource when it has one), a data source, an action or a function.
type servedType struct {
	resource   func() resource.Resource
	list       func() list.ListResource
	dataSource func() datasource.DataSource
	action     func() action.Action
	function   func() function.Function
}

// served is every type the provider serves, in one list. A list-backed type
// (listBacked) and a settings kind (settingsType) give their resource and
// list resource together. Users cannot be listed: Neon has no endpoint for
// it.
var served = []servedType{
	authDataAPI.served(),
	authDomain.served(),
	{resource: NewAuthDomainsResource},
	settingsType(emailAndPasswordKind),
	{resource: NewAuthEmailServerResource, list: NewAuthEmailServerList},
	{resource: NewAuthExternalJWKSResource, list: NewAuthExternalJWKSList},
	{resource: NewAuthIntegrationResource, list: NewAuthIntegrationList},
	settingsType(magicLinkPluginKind),
	authOAuthProvider.served(),
	settingsType(organizationPluginKind),
	{resource: NewAuthOwnershipTransferResource},
	settingsType(phoneNumberPluginKind),
	{resource: NewAuthSDKKeysResource},
	{resource: NewAuthUserResource},
	settingsType(webhooksKind),
	{dataSource: NewAuthIntegrationsDataSource},
	{dataSource: NewAuthIntegrationDataSource},
	{dataSource: NewAuthDomainsDataSource},
	{dataSource: NewAuthOAuthProvidersDataSource},
	{dataSource: NewAuthEmailServerDataSource},
	{dataSource: NewProjectsDataSource},
	// Actions are what `action_trigger` and `terraform apply -invoke` run
	// (Terraform ≥ 1.14).
	{action: NewSendTestEmailAction},
	{function: NewCanonicalOriginFunction},
}

// servedOf is each f of the served types that has one.
func servedOf[T any](f func(servedType) T) []T {
	var out []T
	for _, t := range served {
		if v := f(t); !reflect.ValueOf(v).IsNil() {
			out = append(out, v)
		}
	}
	return out
}

func (p *neonProvider) Resources(context.Context) []func() resource.Resource {
	return servedOf(func(t servedType) func() resource.Resource { return t.resource })
}

func (p *neonProvider) ListResources(context.Context) []func() list.ListResource {
	return servedOf(func(t servedType) func() list.ListResource { return t.list })
}

func (p *neonProvider) DataSources(context.Context) []func() datasource.DataSource {
	return servedOf(func(t servedType) func() datasource.DataSource { return t.dataSource })
}

func (p *neonProvider) Actions(context.Context) []func() action.Action {
	return servedOf(func(t servedType) func() action.Action { return t.action })
}

func (p *neonProvider) Functions(context.Context) []func() function.Function {
	return servedOf(func(t servedType) func() function.Function { return t.function })
}

// tflogLogger sends the client's request lines and the Neon Auth service's
// lines to tflog, masking every secret it knows of in messages and field
// values.
type tflogLogger struct {
	secrets []string
}

func (l tflogLogger) Debug(ctx context.Context, msg string, fields map[string]any) {
	ctx = tflog.MaskAllFieldValuesStrings(ctx, l.secrets...)
	ctx = tflog.MaskMessageStrings(ctx, l.secrets...)
	tflog.Debug(ctx, msg, fields)
}
