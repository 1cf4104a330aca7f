/**
 * Unit tests of expansion declarations (no database): relations reach the registries of other
 * resources by object type, so nested `expand[]` paths are checked through the declared registries.
 */
import { describe, expect, test } from '@jest/globals';
import { checkExpandPaths, declareExpansions, type Relation } from '../../../services/api/src/operations/expansion.js';

const none = async () => new Map<string, unknown>();
const relation = (expands?: string): Relation<never> => ({ key: () => null, load: none, ...(expands ? { expands } : {}) });

describe('declareExpansions', () => {
  const shelf = declareExpansions('unit_shelf', { books: relation('unit_book') });
  declareExpansions('unit_book', { author: relation(), shelf: relation('unit_shelf') });

  test('nested paths are checked against the registry the relation names', () => {
    expect(() => checkExpandPaths(shelf, ['books.author', 'books.shelf.books'])).not.toThrow();
    expect(() => checkExpandPaths(shelf, ['books.title'])).toThrow(/title is not a relation of books/);
  });

  test('a type declared twice is refused at start-up', () => {
    expect(() => declareExpansions('unit_book', {})).toThrow(/declared twice/);
  });

  test('a relation naming a type that nobody declared fails loudly, not silently unexpanded', () => {
    const orphan = declareExpansions('unit_orphan', { ghost: relation('unit_never_declared') });
    expect(() => checkExpandPaths(orphan, ['ghost.anything'])).toThrow(/No expansions are declared for unit_never_declared/);
  });
});
