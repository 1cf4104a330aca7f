/**
 * The descriptive half of a collection's standard operations (list, search, create, retrieve,
 * update, delete): method, path, operationId, tag, summary, access, so every collection is
 * described the same way. The id prefix, the noun and the scopes come from the resource's
 * declaration (@dms/domain); a resource's operation table spreads these heads and adds schemas and
 * handlers. Paths keep their literal types, so handlers get typed path parameters.
 */
import type { AnyResource } from '@dms/domain/kernel';
import type { Scope } from '@dms/scopes';
import type { Access, AnyOperation, HttpMethod } from './operation.js';

/** The descriptive fields of one operation, its path kept literal. */
export type OperationHead<P extends string = string> = Pick<AnyOperation, 'operationId' | 'tag' | 'summary' | 'description' | 'access' | 'pathParams'> & {
  method: HttpMethod;
  path: P;
};

/** A collection to describe. */
export interface CollectionNames<Path extends string, IdParam extends string> {
  /** Its declaration: id prefix and noun. */
  resource: AnyResource;
  path: Path;
  tag: string;
  /** Scopes that read and write it (default: the resource's own, `<x>:read` and `<x>:write`). */
  read?: Scope;
  write?: Scope;
  /** Name of the id parameter of the item path (default `id`). */
  idParam?: IdParam;
  /** Path parameters of the collection path itself (nested collections, e.g. `{debtId}` → `deb`). */
  parentParams?: Record<string, string>;
}

/**
 * Heads of the standard operations of a collection.
 * @returns `{list, search, create, retrieve, update, delete}`, each an OperationHead
 * @throws Error when neither the names nor the resource give the scopes (a programming error)
 */
export function crud<const Path extends string, const IdParam extends string = 'id'>(c: CollectionNames<Path, IdParam>) {
  const { resource } = c;
  const [ownRead, ownWrite] = (resource.scopes ?? []) as Scope[];
  const readScope = c.read ?? ownRead;
  const writeScope = c.write ?? ownWrite;
  if (!readScope || !writeScope) throw new Error(`crud(${c.path}): no scopes for ${resource.noun}`);
  const Noun = resource.noun
    .split(' ')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
  const aNoun = `${/^[aeiou]/.test(resource.noun) ? 'an' : 'a'} ${resource.noun}`;
  const name = c.tag.replace(/\s+/g, '');
  const idParam = (c.idParam ?? 'id') as IdParam;
  const item = `${c.path}/{${idParam}}` as const;
  const parent = c.parentParams;
  const itemParams = { ...parent, [idParam]: resource.idPrefix };
  const read: Access = { token: true, scope: readScope };
  const write: Access = { token: true, scope: writeScope };
  const plural = c.tag.toLowerCase();
  const head = <P extends string>(h: OperationHead<P>): OperationHead<P> => h;
  return {
    list: head({
      method: 'get',
      path: c.path,
      operationId: `list${name}`,
      tag: c.tag,
      summary: `List ${plural}`,
      access: read,
      pathParams: parent,
      description: `The tenant's ${plural}, newest first, paginated with \`limit\`/\`after\`/\`before\`.`,
    }),
    search: head({
      method: 'get',
      path: `${c.path}/search` as const,
      operationId: `search${name}`,
      tag: c.tag,
      summary: `Search ${plural}`,
      access: read,
      pathParams: parent,
      description:
        'Terms `field:value` (or `=`), `field>value`, `>=`, `<`, `<=` joined by `AND`, `OR` (any case) or spaces (= AND), not AND and OR in one query; values bare, double- or single-quoted. Paginated like lists; `X-Total-Count` counts the matches up to a cap, and `X-Total-Count-Relation` says whether it is exact (`eq`) or a lower bound (`gte`).',
    }),
    create: head({ method: 'post', path: c.path, operationId: `create${Noun}`, tag: c.tag, summary: `Create ${aNoun}`, access: write, pathParams: parent }),
    retrieve: head({
      method: 'get',
      path: item,
      operationId: `retrieve${Noun}`,
      tag: c.tag,
      summary: `Retrieve ${aNoun}`,
      access: read,
      pathParams: itemParams,
    }),
    update: head({
      method: 'patch',
      path: item,
      operationId: `update${Noun}`,
      tag: c.tag,
      summary: `Update ${aNoun}`,
      access: write,
      pathParams: itemParams,
      description: 'Send only the fields to change; unknown fields are rejected.',
    }),
    delete: head({
      method: 'delete',
      path: item,
      operationId: `delete${Noun}`,
      tag: c.tag,
      summary: `Delete ${aNoun}`,
      access: write,
      pathParams: itemParams,
      description: 'The object leaves lists, counts and searches.',
    }),
  };
}
