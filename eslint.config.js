// The house rules a linter can check (issue 16; docs/decisions/0011-lint-house-rules.md):
// file and function size, declared dependencies, layers that only import downwards, kebab-case file names.
import tseslint from 'typescript-eslint';
import declaredDependencies from './scripts/lint/declared-dependencies.js';
import checkFile from 'eslint-plugin-check-file';
import { builtinModules } from 'node:module';

const code = ['**/*.ts', '**/*.js', '**/*.mjs'];
const tests = ['packages/*/test/**', 'examples/*/test/**'];

/** The layers of a service, top to bottom; a file may import its own layer and the ones below it. */
const layerRule = (forbidden) => [
  'error',
  {
    patterns: forbidden.map((layer) => ({
      regex: `(^|/)${layer}/`,
      message: `${layer}/ is a higher layer: routes/ → (realtime/) → services/ → queries/ import downwards only.`,
    })),
  },
];

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/data/**', '**/dist/**', 'bench/results/**', 'packages/client/src/generated/**'] },
  {
    files: code,
    languageOptions: { parser: tseslint.parser, ecmaVersion: 2022, sourceType: 'module' },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { house: { rules: { 'declared-dependencies': declaredDependencies } }, 'check-file': checkFile },
    rules: {
      'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }],
      // Each import resolves to the importing file's nearest package.json: a package declares what it uses.
      'house/declared-dependencies': ['error', { devFiles: [...tests, 'scripts/**', 'packages/client/scripts/**', 'bench/**', 'eslint.config.js', 'packages/kit/src/testing.ts'] }],
      'check-file/filename-naming-convention': ['error', { '**/*.{ts,js,mjs}': 'KEBAB_CASE' }, { ignoreMiddleExtensions: true }],
      'check-file/folder-naming-convention': ['error', { '{packages,examples}/*/{src,test}/**/': 'KEBAB_CASE', '{scripts,bench}/**/': 'KEBAB_CASE' }],
    },
  },
  // A test file's describe() callback holds its whole suite: the function limit would only count tests.
  { files: tests, rules: { 'max-lines-per-function': 'off' } },
  { files: ['packages/*/src/**/queries/**'], rules: { 'no-restricted-imports': layerRule(['services', 'routes', 'realtime']) } },
  { files: ['packages/*/src/**/services/**'], rules: { 'no-restricted-imports': layerRule(['routes', 'realtime']) } },
  { files: ['packages/*/src/**/{realtime,providers}/**'], rules: { 'no-restricted-imports': layerRule(['routes']) } },
  // adapters/ (infrastructure behind interfaces: mail, HTTP to other services, blob store) sit below the entry layers.
  { files: ['packages/*/src/**/adapters/**'], rules: { 'no-restricted-imports': layerRule(['routes', 'realtime']) } },
  // The client SDK runs in browsers (and Node): no Node built-ins. Server packages are kept out by
  // declared-dependencies (it has no runtime dependencies at all).
  {
    files: ['packages/client/src/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: `^(node:|(${builtinModules.join('|')})(/|$))`, message: 'The client runs in browsers: no Node built-ins.' }] },
      ],
    },
  },
);
