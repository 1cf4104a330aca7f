/**
 * Prints the OpenAPI 3.1 document the API serves at `/openapi.json` (docs/api.md section 3), built
 * from the operation tables with no I/O, so CI and the client generator read it without starting a
 * service. Run `node services/api/dist/print-openapi.js`: settings from the environment as the API
 * itself (`PUBLIC_BASE_URL`, `AUTH_ISSUER`); the document on stdout as indented JSON.
 */
import { loadApiConfig } from './config.js';
import { buildOpenApiDocument } from './openapi/document.js';
import { ALL_OPERATIONS } from './resources/index.js';

const cfg = loadApiConfig();
const doc = buildOpenApiDocument(
  { serverUrl: cfg.PUBLIC_BASE_URL, tokenUrl: new URL('/oauth/token', cfg.AUTH_ISSUER).href, searchTotalCap: cfg.SEARCH_TOTAL_CAP },
  ALL_OPERATIONS,
);
process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
