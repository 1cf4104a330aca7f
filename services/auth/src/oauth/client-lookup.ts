/**
 * How oidc-provider finds the client of a token request (docs/api.md section 2; RFC 6749 section
 * 2.3.1).
 *
 * oidc-provider turns the adapter's metadata into a `Client` (a full RFC 7591 schema validation)
 * and keeps the result in an LRU of only 100 entries keyed by a SHA-256 of the metadata; an issuer
 * serving more clients than that in turn (the benchmark's 200, any real fleet of machine clients)
 * validated again on almost every request, and each short-lived `Client` added to the garbage
 * collector's old generation. `Client.find` is therefore answered here from the client cache: one
 * `Client` per cached client entry, built on first use and dropped with the entry (a revoked client
 * or a rotated secret makes a new entry, see client-cache.ts).
 *
 * Both `client_secret_basic` and `client_secret_post` are registered as the Basic method:
 * oidc-provider accepts either way of sending a client secret for a client registered with one of
 * them, so the way a request authenticates needs no per-request registration.
 */
import type Provider from 'oidc-provider';
import type { ClientMetadata } from 'oidc-provider';
import type { StoredClient } from '../domain/clients.js';
import type { ClientCache } from './client-cache.js';

/** RFC 7591 metadata of a stored client, as oidc-provider's adapter contract returns it. */
export function clientMetadata(client: StoredClient): ClientMetadata {
  return {
    client_id: client.client_id,
    client_secret: client.client_secret,
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    scope: client.scope,
    tenant_id: client.tenant_id,
    client_kind: client.kind,
    livemode: client.livemode,
    token_endpoint_auth_method: 'client_secret_basic',
  };
}

type ProviderClient = InstanceType<Provider['Client']>;

/**
 * Makes `provider.Client.find` read through `clients`, building each `Client` once per cache entry.
 * A lookup the cache answers from the database (entry missing, cache suspended) gets a new object,
 * so nothing built from an older row is ever reused.
 * @throws (from find) what the client cache's database lookup throws
 */
export function findClientsThrough(provider: Provider, clients: Pick<ClientCache, 'find'>): void {
  const Client = provider.Client;
  // The typings omit the constructor oidc-provider's own add_client.js calls with the metadata.
  const build = Client as unknown as new (metadata: ClientMetadata) => ProviderClient;
  // Keyed by the cache's entry object: an entry the cache drops takes its Client with it.
  const built = new WeakMap<StoredClient, ProviderClient>();
  Client.find = async (id: string) => {
    if (typeof id !== 'string' || !id.length) return undefined;
    const stored = await clients.find(id);
    if (!stored) return undefined;
    let client = built.get(stored);
    if (!client) {
      client = new build(clientMetadata(stored));
      built.set(stored, client);
    }
    return client;
  };
}
