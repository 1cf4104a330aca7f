/**
 * The `route` label of request metrics (docs/api.md section 11): always an operation's path
 * template (`/debts/{id}/payments`), whatever the path and wherever the request ended (a 401
 * before routing, a 400 from validation), so the number of series stays bounded. Paths that match
 * no operation are `unmatched`; replays answered before routing are `replayed`.
 */
import type { Request, Response } from 'express';
import type { AnyOperation } from './operation.js';

/** The path templates of `operations` with their patterns and methods, most literal segments first. */
function pathTemplates(operations: readonly AnyOperation[]) {
  const templates = [...new Set(operations.map((o) => o.path))].map((path) => ({
    path,
    // `{id}` matches one non-empty segment; literal segments match themselves.
    pattern: new RegExp(
      `^${path
        .split('/')
        .map((s) => (s.startsWith('{') ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('/')}/?$`,
    ),
    literals: path.split('/').filter((s) => s && !s.startsWith('{')).length,
    methods: operations.filter((o) => o.path === path).map((o) => o.method.toUpperCase()),
  }));
  // Most literal segments first: `/debts/search` wins over `/debts/{id}`.
  return templates.sort((a, b) => b.literals - a.literals);
}

/** A label function for `operations`. */
export function routeLabeler(operations: readonly AnyOperation[]): (req: Request, res: Response) => string {
  const templates = pathTemplates(operations);
  return (req, res) => {
    if (typeof res.locals.route === 'string') return res.locals.route;
    if (res.getHeader('Idempotent-Replayed') === 'true') return 'replayed';
    return templates.find((t) => t.pattern.test(req.path))?.path ?? 'unmatched';
  };
}

/**
 * The methods `path` has among `operations` (every template it matches, `HEAD` with `GET`), for
 * `Allow` (RFC 9110 section 10.2.1); empty when no template matches.
 */
export function allowedMethods(operations: readonly AnyOperation[]): (path: string) => string[] {
  const templates = pathTemplates(operations);
  return (path) => {
    const methods = new Set(templates.filter((t) => t.pattern.test(path)).flatMap((t) => t.methods));
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  };
}
