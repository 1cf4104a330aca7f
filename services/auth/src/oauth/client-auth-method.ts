/**
 * RFC 6749 section 2.3.1 lets a confidential client authenticate with HTTP Basic or with
 * `client_id`/`client_secret` in the form body. oidc-provider binds each client to one registered
 * `token_endpoint_auth_method`, so the method the current request uses is recorded here (per
 * request, through AsyncLocalStorage) and the adapter reports it as the client's registered one.
 * Both methods check the same secret; the request's choice is the only difference.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post';

const store = new AsyncLocalStorage<ClientAuthMethod>();

/** Runs `fn` with the auth method implied by the request's `Authorization` header. */
export function withClientAuthMethod<T>(authorizationHeader: string | undefined, fn: () => T): T {
  const method: ClientAuthMethod = /^basic /i.test(authorizationHeader ?? '') ? 'client_secret_basic' : 'client_secret_post';
  return store.run(method, fn);
}

/** The method of the request being handled (Basic when called outside a request). */
export function clientAuthMethodOfRequest(): ClientAuthMethod {
  return store.getStore() ?? 'client_secret_basic';
}
