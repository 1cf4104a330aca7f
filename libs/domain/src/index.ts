/**
 * The domain of the debt-management platform (docs/api.md): one folder per resource, each holding
 * its declaration, schemas, state machine and store, with no HTTP in it. The API, the worker, the
 * issuer's admin tools, the seed and the benchmarks use it through `@dms/domain/<folder>`; this
 * entry point is the registry of every resource and the lists built from it.
 */
export * from './registry.js';
