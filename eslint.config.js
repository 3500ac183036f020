import { builtinModules } from 'node:module';
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// Node's built-in modules by their bare names (`fs`, `path`, `worker_threads`…); `node:*` is a pattern.
const nodeBuiltins = builtinModules.filter((name) => !name.startsWith('_'));

const forbid = (names, message) => names.map((name) => ({ name, message }));

const noNode = {
  paths: forbid(nodeBuiltins, 'Node built-ins belong in electron/.'),
  pattern: { group: ['node:*'], message: 'Node built-ins belong in electron/.' },
};

/** Ways to turn a string into markup in the DOM. */
const htmlSinks = [
  "JSXAttribute[name.name='dangerouslySetInnerHTML']",
  "AssignmentExpression > MemberExpression.left[property.name=/^(innerHTML|outerHTML|srcdoc)$/]",
  "CallExpression[callee.property.name=/^(insertAdjacentHTML|createContextualFragment|parseFromString)$/]",
  "CallExpression[callee.object.name='document'][callee.property.name=/^(write|writeln)$/]",
];

// A relative import that climbs into a sibling layer, e.g. `../electron/cli/main` or `../../renderer/x`.
const intoLayer = (layer, message) => ({ regex: `^(\\./)?(\\.\\./)+${layer}(/|$)`, message });

// Development tools (tools/: the sample generator, test helpers, repository checks) never ship: the
// shipped code of electron/, shared/ and renderer/ imports nothing from tools/; its tests and test
// helpers may (tools/repo/fences.test.ts holds this rule to it).
const TEST_FILES = ['**/*.test.ts', '**/*.test.tsx', '**/*.setup.ts', '**/testing/**'];
const intoTools = intoLayer('tools', 'Shipped code imports nothing from tools/ (development tools); only tests and test helpers may.');

/** The layer's import rule for `files`, and the same with tools/ fenced off for its shipped (non-test) files. */
const layerImports = (files, options) => [
  { files, rules: { 'no-restricted-imports': ['error', options] } },
  { files, ignores: TEST_FILES, rules: { 'no-restricted-imports': ['error', { ...options, patterns: [...(options.patterns ?? []), intoTools] }] } },
];

export default defineConfig(
  globalIgnores([
    'dist/',
    'release/',
    'coverage/',
    'samples/',
    'bench/out/',
    'test-results/',
    'playwright-report/',
  ]),

  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // `const { omitted: _, ...rest } = x` is how a copy without a field is made; `_name` marks an
      // intentionally unused binding.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { ignoreRestSiblings: true, argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
    },
  },

  // Plain JavaScript (scripts, launcher, this file) runs in Node and is not in any tsconfig.
  {
    files: ['**/*.{js,mjs,cjs}'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },

  // Layering (SPEC §6): the tsconfig of each folder keeps out the wrong globals; these rules keep
  // out the wrong imports.
  ...layerImports(['shared/**'], {
    paths: [
      ...noNode.paths,
      ...forbid(['electron'], 'shared/ is pure: the Electron API belongs in electron/.'),
      ...forbid(['react', 'react-dom'], 'shared/ is pure: React belongs in renderer/.'),
    ],
    patterns: [
      noNode.pattern,
      { group: ['react/*', 'react-dom/*'], message: 'shared/ is pure: React belongs in renderer/.' },
      intoLayer('electron', 'shared/ imports nothing from electron/.'),
      intoLayer('renderer', 'shared/ imports nothing from renderer/.'),
    ],
  }),
  {
    files: ['renderer/**'],
    rules: {
      // Session content is shown as text, never parsed as markup or run (SECURITY.md): no HTML sinks.
      'no-restricted-syntax': [
        'error',
        ...htmlSinks.map((selector) => ({ selector, message: 'Session content is shown as text: build elements with React, never markup from a string (SECURITY.md).' })),
      ],
      'no-eval': 'error',
      'no-new-func': 'error',
    },
  },
  ...layerImports(['renderer/**'], {
    paths: [
      ...noNode.paths,
      ...forbid(['electron'], 'The renderer reaches the host only through its bridge file.'),
    ],
    patterns: [
      noNode.pattern,
      intoLayer('electron', 'The renderer reaches the host only through its bridge file.'),
    ],
  }),
  ...layerImports(['electron/**'], {
    patterns: [intoLayer('renderer', 'electron/ never imports renderer/; share code through shared/.')],
  }),
);
