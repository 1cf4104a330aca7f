/**
 * Request properties the API's middleware adds, declared on Express's Request type.
 */

/** The verified caller, from the access token (docs/api.md section 3). */
export interface Principal {
  tenantId: string;
  clientId: string;
  scopes: ReadonlySet<string>;
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
