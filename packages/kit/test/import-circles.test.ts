// No import circle in any package's src/ nor among the bench files (docs/decisions/0011-lint-house-rules.md): every
// relative import of a .ts file (type-only and dynamic imports too, as a reader follows them) forms a graph that
// must have no cycle. A cycle is reported as the files on it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../../..');
const IMPORT = /(?:import|export)\s[^'";]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return name === 'node_modules' ? [] : tsFiles(p);
    return p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

/** The graph of relative imports among the files under `dir`. */
function graph(dir: string): Map<string, string[]> {
  const g = new Map<string, string[]>();
  for (const file of tsFiles(dir)) {
    const edges: string[] = [];
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const target = path.resolve(path.dirname(file), (m[1] ?? m[2]).replace(/\.js$/, '.ts'));
      if (existsSync(target)) edges.push(target);
    }
    g.set(file, edges);
  }
  return g;
}

/** One cycle of the graph (its files, relative to the root), or undefined. */
export function findCycle(g: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (n: string): string[] | undefined => {
    state.set(n, 'open');
    stack.push(n);
    for (const next of g.get(n) ?? []) {
      if (state.get(next) === 'open') return stack.slice(stack.indexOf(next)).map((f) => path.relative(root, f));
      if (!state.has(next)) {
        const found = visit(next);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(n, 'done');
    return undefined;
  };
  for (const n of g.keys()) if (!state.has(n)) {
    const found = visit(n);
    if (found) return found;
  }
  return undefined;
}

describe('import circles', () => {
  const dirs = [
    ...['packages', 'examples'].flatMap((group) =>
      existsSync(path.join(root, group)) ? readdirSync(path.join(root, group)).map((p) => path.join(root, group, p, 'src')) : [],
    ),
    path.join(root, 'bench'),
  ].filter((d) => existsSync(d));

  for (const dir of dirs) {
    it(`none in ${path.relative(root, dir)}`, () => {
      assert.deepEqual(findCycle(graph(dir)), undefined);
    });
  }

  it('the check finds a circle, type-only imports included', () => {
    const a = path.join(root, 'a.ts');
    const b = path.join(root, 'b.ts');
    const c = path.join(root, 'c.ts');
    assert.deepEqual(findCycle(new Map([[a, [b]], [b, [c]], [c, [a]]])), ['a.ts', 'b.ts', 'c.ts']);
    assert.equal(findCycle(new Map([[a, [b]], [b, [c]], [c, []]])), undefined);
    const sample = "import type { X } from './x.js';\nexport { y } from '../y.js';\nconst z = await import('./z.js');\n";
    assert.deepEqual([...sample.matchAll(IMPORT)].map((m) => m[1] ?? m[2]), ['./x.js', '../y.js', './z.js']);
  });
});

// The console is static files the registry reads from a directory (REGISTRY_CONSOLE_DIR, docs/console.md): no
// service's src/ (nor the kit's, nor the one-process host's) imports @platform/console (nor one of its subpaths), nor lists it as a dependency.
const SERVICES = ['registry', 'auth', 'social', 'kit', 'host'];
const CONSOLE_IMPORT = /(?:import|export)\s[^'";]*?from\s*['"]@platform\/console(?:\/[^'"]*)?['"]|import\(\s*['"]@platform\/console(?:\/[^'"]*)?['"]\s*\)|^\s*import\s+['"]@platform\/console(?:\/[^'"]*)?['"]/gm;
// matchAll works on a copy of the expression: no lastIndex carried from one file to the next.
const importsConsole = (text: string) => [...text.matchAll(CONSOLE_IMPORT)].length > 0;

describe('no service imports the console', () => {
  for (const service of SERVICES) {
    it(`none in packages/${service}`, () => {
      const dir = path.join(root, 'packages', service);
      const importing = tsFiles(path.join(dir, 'src')).filter((f) => importsConsole(readFileSync(f, 'utf8')));
      assert.deepEqual(importing.map((f) => path.relative(root, f)), []);
      const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
      for (const field of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies']) {
        assert.equal(manifest[field]?.['@platform/console'], undefined, `${service}'s package.json ${field}`);
      }
    });
  }

  it('the check finds each form of import', () => {
    for (const sample of [
      "import { x } from '@platform/console';",
      "import type { X } from '@platform/console';",
      "export * from \"@platform/console/dist/index.js\";",
      "const m = await import('@platform/console');",
      "import '@platform/console';",
    ]) {
      assert.ok(importsConsole(sample), sample);
    }
    assert.equal(importsConsole("import { x } from '@platform/consoles';\n// @platform/console"), false);
  });
});
