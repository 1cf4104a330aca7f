/**
 * The descriptive half of a collection's standard operations (list, search, create, retrieve,
 * update, delete): method, path, operationId, tag, summary, access, so every collection is
 * described the same way. A resource's table spreads these and adds schemas and handlers.
 */
import type { IdPrefix } from '@dms/ids';
import type { Scope } from '@dms/scopes';
import type { Access, AnyOperation } from './operation.js';

/** The descriptive fields of one operation. */
export type OperationHead = Pick<AnyOperation, 'method' | 'path' | 'operationId' | 'tag' | 'summary' | 'description' | 'access' | 'pathParams'>;

/** A collection to describe: its path, id prefix, tag, singular noun and scopes. */
export interface CollectionNames {
  path: string;
  idPrefix: IdPrefix;
  tag: string;
  noun: string;
  read: Scope;
  write: Scope;
  /** Name of the id parameter of the item path (default `id`). */
  idParam?: string;
  /** Path parameters of the collection path itself (nested collections, e.g. `{debtId}`). */
  parentParams?: Record<string, IdPrefix>;
}

/**
 * Heads of the standard operations of a collection.
 * @returns `{list, search, create, retrieve, update, replace, delete}`, each an OperationHead
 */
export function crud(c: CollectionNames) {
  const Noun = c.noun
    .split(' ')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
  const aNoun = `${/^[aeiou]/.test(c.noun) ? 'an' : 'a'} ${c.noun}`;
  const name = c.tag.replace(/\s+/g, '');
  const idParam = c.idParam ?? 'id';
  const item = `${c.path}/{${idParam}}`;
  const parent = c.parentParams;
  const itemParams = { ...parent, [idParam]: c.idPrefix };
  const read: Access = { token: true, scope: c.read };
  const write: Access = { token: true, scope: c.write };
  const plural = c.tag.toLowerCase();
  const head = (h: OperationHead): OperationHead => h;
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
      path: `${c.path}/search`,
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
