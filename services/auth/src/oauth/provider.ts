/**
 * The oidc-provider instance behind `POST /oauth/token` and the JWKS: the client_credentials grant
 * only (RFC 6749 section 4.4), JWT access tokens (RFC 9068) for one resource server, the API.
 *
 * - `audience` is this service's name for the RFC 8707 `resource` parameter: when a request has no
 *   `resource`, `defaultResource` takes `audience` from the form body; one of the two is required.
 * - An omitted `scope` grants every scope the client is allowed (docs/api.md section 2).
 * - Tokens carry `tenant_id` (from the client) beside the RFC 9068 claims; an operator client's
 *   tokens carry `operator: true` instead, and only the operator scopes (docs/api.md section 12).
 * - A tenant client's tokens carry `livemode` (false for a test client, docs/api.md section 15).
 */
import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import { randomBytes } from 'node:crypto';
import { isOperatorScope, isScope, OPERATOR_SCOPES, parseScope, SCOPES } from '@dms/scopes';
import type { SigningKeySet } from '../domain/signing-keys.js';

/** What the provider is built from; rebuilt when the signing keys change. */
export interface ProviderOptions {
  issuer: string;
  audience: string;
  accessTokenTtlSeconds: number;
  keys: SigningKeySet;
  adapter: NonNullable<Configuration['adapter']>;
}

/** Paths of the issuer (docs/api.md section 1). */
export const ROUTES = {
  token: '/oauth/token',
  jwks: '/.well-known/jwks.json',
} as const;

type ClientWithTenant = { scope?: string; tenant_id?: string | null; client_kind?: 'tenant' | 'operator'; livemode?: boolean };

/** Every scope a token of this issuer can carry: the tenants' and the operators'. */
const ALL_SCOPES = [...SCOPES, ...OPERATOR_SCOPES];

function formValue(ctx: KoaContextWithOIDC, name: string): string | undefined {
  const value = ctx.oidc.body?.[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw new errors.InvalidRequest(`'${name}' parameter must only be provided once`);
  return value;
}

/** Creates a configured oidc-provider instance. Pure: no I/O until it serves requests. */
export function createProvider(opts: ProviderOptions): Provider {
  const { keys } = opts;
  const alg = keys.keys.find((k) => k.kid === keys.activeKid)!.alg;
  const configuration: Configuration = {
    adapter: opts.adapter,
    jwks: { keys: keys.keys as unknown as NonNullable<Configuration['jwks']>['keys'] },
    routes: { token: ROUTES.token, jwks: ROUTES.jwks },
    scopes: ALL_SCOPES,
    // No authorization endpoint flows: with the default response types oidc-provider would also
    // accept `grant_type=authorization_code` (answering invalid_request), where docs/api.md section 2
    // and RFC 6749 5.2 want every grant but client_credentials to be unsupported_grant_type.
    responseTypes: ['none'],
    clientAuthMethods: ['client_secret_basic', 'client_secret_post'],
    extraClientMetadata: { properties: ['tenant_id', 'client_kind', 'livemode'] },
    // Only cookies of the (disabled) interactive flows would use these; set to avoid a default.
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    ttl: { ClientCredentials: opts.accessTokenTtlSeconds },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: false },
      revocation: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource(ctx) {
          const audience = formValue(ctx, 'audience');
          if (!audience) throw new errors.InvalidRequest("missing required parameter 'audience'");
          return audience;
        },
        useGrantedResource: () => true,
        getResourceServerInfo(ctx, resourceIndicator, client) {
          const audience = formValue(ctx, 'audience');
          if (audience !== undefined && audience !== resourceIndicator) {
            throw new errors.InvalidRequest("'audience' and 'resource' name different APIs");
          }
          if (resourceIndicator !== opts.audience) throw new errors.InvalidTarget('unknown audience');
          const params = ctx.oidc.params as { scope?: string };
          const requested = parseScope(params.scope);
          const unknown = requested.find((s) => !isScope(s) && !isOperatorScope(s));
          if (unknown) throw new errors.InvalidScope('requested scope is not allowed', unknown);
          // No scope asked for: grant everything the client may have.
          if (requested.length === 0) params.scope = (client as ClientWithTenant).scope;
          return {
            scope: ALL_SCOPES.join(' '),
            accessTokenFormat: 'jwt',
            accessTokenTTL: opts.accessTokenTtlSeconds,
            jwt: { sign: { alg, kid: keys.activeKid } },
          };
        },
      },
    },
    extraTokenClaims(_ctx, token) {
      const client = (token as unknown as { client?: ClientWithTenant }).client;
      return client?.client_kind === 'operator' ? { operator: true } : { tenant_id: client?.tenant_id, livemode: client?.livemode !== false };
    },
    renderError: undefined,
  };
  delete configuration.renderError;
  const provider = new Provider(opts.issuer, configuration);
  // The issuer sits behind TLS-terminating proxies in production; trust X-Forwarded-*.
  provider.proxy = true;
  return provider;
}
