/**
 * Request properties the API's middleware adds, declared on Express's Request type.
 */

/** The verified caller, from the access token (docs/api.md section 3). */
export interface Principal {
  /** The tenant acted for: the token's, or for an operator the one its `Tenant-Id` names. */
  tenantId: string;
  clientId: string;
  scopes: ReadonlySet<string>;
  /** True for an operator client of the platform (docs/api.md section 12). */
  operator: boolean;
  /** False when the tenant acted for is a test-mode tenant (docs/api.md section 15). */
  livemode: boolean;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      id: string;
      principal?: Principal;
      apiVersion: string;
    }
  }
}

export {};
