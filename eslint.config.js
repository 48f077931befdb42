// Lint rules from ../shared/STYLE.md: a headless engine, no floating promises, exhaustive switches,
// hooks with complete dependencies, console only in the CLI entry.
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

const uiStack = ['react', 'react/*', 'ink', 'ink-*', 'zustand', 'zustand/*'];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'scripts/empty-module.js', 'eslint.config.js', 'coverage/', '.bench/'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    files: ['source/engine/**', 'source/store/**', 'source/spec/**', 'source/providers/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: uiStack, message: 'engine, store, spec and providers stay headless: no React, Ink or zustand (STYLE.md §1)' }] }] },
  },
  {
    // The lifecycle layer sits between commands and engine: it never presents, and reaches storage
    // only through its repository port (store types may travel with it).
    files: ['source/session/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [
        { group: uiStack, message: 'the session layer stays headless: no React, Ink or zustand (STYLE.md §11)' },
        { group: ['**/commands/*', '**/ui/*', '**/ui/**', '**/state/*'], message: 'the session layer is called by commands and views, never the other way round' },
        { group: ['lowdb', 'lowdb/*', '**/store/session-store*', '**/store/session-lock*', '**/store/local-repository*', '**/store/session-journal*', '**/store/session-index*'], allowTypeImports: true, message: 'the session layer reaches sessions through its repository port (session/repository.ts)' },
      ] }],
    },
  },
  {
    files: ['source/engine/**'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [{ group: ['**/session/*', '**/commands/*'], message: 'the engine defines ports; the session layer depends on it, not the reverse' }] }] },
  },
  {
    files: ['source/ui/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['node:fs', 'node:fs/*', 'fs', 'lowdb', 'lowdb/*', '**/store/*'], message: 'the UI never touches the disk: go through the state store (STYLE.md §1)' }] }] },
  },
  { files: ['bench/**', 'test/**'], rules: { 'no-console': 'off' } },
);
