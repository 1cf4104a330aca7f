/**
 * Lint (`npm run lint`, run by CI): typescript-eslint's type-aware recommended rules on every
 * TypeScript source and test (floating and misused promises, thenables, template and string
 * conversions, unbound methods, unnecessary assertions, unused names, ...), the plain recommended
 * rules on the JavaScript scripts. Formatting is Prettier's (`npm run format:check`), so no
 * stylistic rule is enabled here. Rules switched off carry their reason.
 */
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '.data/**', 'coverage/**', 'services/api/public/**', 'clients/typescript/src/schema.ts'] },
  js.configs.recommended,
  {
    files: ['**/*.ts'],
    extends: [...tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Knex types query results (raw, insert/update `returning`) as `any` by design; rows are typed
      // where they are read, by the TypeBox row schema of each resource. These rules would only ask
      // for a cast at every query, which proves nothing more.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Handlers handed to Node and Express as callbacks (a server's request listener, a child's
      // message handler) return promises they settle themselves; the rule stays on everywhere else.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      // Method-style declarations in interfaces (Knex's migration source, a store's operations)
      // are plain functions here; no code depends on `this` through them.
      '@typescript-eslint/unbound-method': 'off',
      // An async function without `await` is how an interface that returns a promise is met (Knex's
      // migration source, oidc-provider's adapter); flagging it asks for a wrapper, not a fix.
      '@typescript-eslint/require-await': 'off',
      // `_`-prefixed names are deliberately unused (destructuring that drops a property).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  {
    // Typing a test's look into a response or a row (`(d: any) => d.id`) is what the test is about.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      // The test project's control flow (a value set in a retry loop) is read differently by the
      // linter's program than by `tsc -p test`, which needs the assertion.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: globals.node },
  },
);
