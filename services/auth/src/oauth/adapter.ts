/**
 * oidc-provider storage adapter. The issuer is stateless apart from clients: access tokens are
 * self-contained JWTs (RFC 9068), so oidc-provider never stores them, and no other grant is
 * enabled. Clients come from PostgreSQL through the client cache, which every client change
 * invalidates on all instances as it commits, so a revoked client or a rotated secret takes effect
 * at once (client-cache.ts). The token endpoint finds clients through client-lookup.ts, which reads
 * the same cache; this adapter answers any other `Client.find` of oidc-provider alike.
 */
import type { ClientCache } from './client-cache.js';
import { clientMetadata } from './client-lookup.js';

/** Dependencies the adapter factory closes over. */
export interface AdapterDeps {
  clients: Pick<ClientCache, 'find'>;
}

/**
 * Builds the adapter class oidc-provider instantiates once per model name.
 * Client lookups return RFC 7591 client metadata; any other model is a programming error here.
 */
export function createAdapter({ clients }: AdapterDeps) {
  return class PostgresClientAdapter {
    readonly model: string;

    constructor(model: string) {
      this.model = model;
    }

    /** @returns client metadata for an active client, else undefined (oidc-provider: invalid_client) */
    async find(id: string) {
      if (this.model !== 'Client') return undefined;
      const client = await clients.find(id);
      return client && clientMetadata(client);
    }

    async upsert(): Promise<void> {
      throw new Error(`the issuer does not persist ${this.model} artifacts`);
    }

    async findByUid() {
      return undefined;
    }

    async findByUserCode() {
      return undefined;
    }

    async consume(): Promise<void> {}

    async destroy(): Promise<void> {}

    async revokeByGrantId(): Promise<void> {}
  };
}
