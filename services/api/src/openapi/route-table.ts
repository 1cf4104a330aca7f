/**
 * Lists the routes an Express 5 application registered, by walking its router stack (nested
 * routers included, with their mount paths). Used to prove that the OpenAPI document and the
 * routes describe the same API.
 */
import type { Express } from 'express';

/** One registered route: lower-case method and OpenAPI-style path (`/debts/{id}`). */
export interface RegisteredRoute {
  method: string;
  path: string;
}

interface Layer {
  rawPath?: unknown;
  route?: { path: unknown; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** `/debts/:id` → `/debts/{id}`; joins mount path and route path without doubled slashes. */
function join(prefix: string, path: string): string {
  const joined = `${prefix}/${path}`.replace(/\/+/g, '/').replace(/(.)\/$/, '$1');
  return joined.replace(/:(\w+)/g, '{$1}');
}

function walk(stack: Layer[], prefix: string, out: RegisteredRoute[]): void {
  for (const layer of stack) {
    if (layer.route) {
      const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
      for (const path of paths) {
        for (const [method, on] of Object.entries(layer.route.methods)) {
          if (on && method !== '_all') out.push({ method, path: join(prefix, String(path)) });
        }
      }
    } else if (layer.handle?.stack) {
      walk(layer.handle.stack, typeof layer.rawPath === 'string' ? join(prefix, layer.rawPath) : prefix, out);
    }
  }
}

/**
 * Every route of `app`, in registration order. Middleware without a route (static files,
 * checks) is not a route and is not listed.
 */
export function registeredRoutes(app: Express): RegisteredRoute[] {
  const out: RegisteredRoute[] = [];
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '', out);
  return out;
}
