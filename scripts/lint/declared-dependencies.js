// ESLint rule: every package a file imports (types included) is declared in the package.json nearest to the
// file, as a dependency — or as a devDependency for files the `devFiles` globs name (tests, scripts).
// A local rule rather than eslint-plugin-import-x's: that one needs a native resolver binding, and the
// lockfile must install on every platform the project supports.
import { builtinModules } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const builtins = new Set(builtinModules);
const manifests = new Map();

/** The nearest package.json above `dir` (cached per directory). */
function manifestFor(dir) {
  if (manifests.has(dir)) return manifests.get(dir);
  const file = path.join(dir, 'package.json');
  const parent = path.dirname(dir);
  const found = existsSync(file) ? { file, json: JSON.parse(readFileSync(file, 'utf8')) } : parent === dir ? null : manifestFor(parent);
  manifests.set(dir, found);
  return found;
}

/** A glob of path segments (`*` within one, `**` for any number) as an anchored RegExp. */
function globRegExp(glob) {
  const segment = (s) => (s === '**' ? '.*' : s.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*'));
  return new RegExp(`^${glob.split('/').map(segment).join('/')}$`);
}

/** `@scope/name/sub` → `@scope/name`, `name/sub` → `name`; undefined for relative, absolute and built-in modules. */
export function packageName(specifier) {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  return builtins.has(name) ? undefined : name;
}

export default {
  meta: {
    type: 'problem',
    docs: { description: 'Imported packages are declared in the nearest package.json' },
    schema: [{ type: 'object', properties: { devFiles: { type: 'array', items: { type: 'string' } } }, additionalProperties: false }],
    messages: {
      undeclared: "'{{name}}' is imported but not declared in {{manifest}}",
      devOnly: "'{{name}}' is a devDependency in {{manifest}}; this file needs it in dependencies",
    },
  },
  create(context) {
    const filename = context.filename;
    const manifest = manifestFor(path.dirname(filename));
    if (!manifest) return {};
    const relative = path.relative(context.cwd, filename).split(path.sep).join('/');
    const devFile = (context.options[0]?.devFiles ?? []).some((glob) => globRegExp(glob).test(relative));
    const { json } = manifest;
    const check = (node) => {
      if (!node || node.type !== 'Literal' || typeof node.value !== 'string') return;
      const name = packageName(node.value);
      if (!name || name === json.name) return;
      const where = path.relative(context.cwd, manifest.file);
      if (json.dependencies?.[name] || json.peerDependencies?.[name] || json.optionalDependencies?.[name]) return;
      if (json.devDependencies?.[name]) {
        if (!devFile) context.report({ node, messageId: 'devOnly', data: { name, manifest: where } });
        return;
      }
      context.report({ node, messageId: 'undeclared', data: { name, manifest: where } });
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
    };
  },
};
