/**
 * How the tests run a package's entry as a process (a service node, a CLI): from its compiled build
 * (`packages/<pkg>/dist/<file>.js`) when scripts/test.mjs found the build current (PLATFORM_NODES_FROM_BUILD=1: about
 * half the start-up CPU of compiling the sources through tsx), else from the sources through tsx. The build resolves
 * @platform/* to their builds too, so `--conditions=development` is taken out of the process's NODE_OPTIONS.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

/** The repository whose build scripts/test.mjs checked (this file is `packages/kit/{src,dist}/testing/…`). */
const REPO = path.resolve(import.meta.dirname, '../../../..');

/**
 * `entry`: `packages/<pkg>/src/<file>.ts` of this repository, relative to it or absolute. An entry elsewhere (another
 * release's tree: the mixed-release test) runs from its sources: its build was not checked, and is usually absent.
 */
export function nodeCommand<E extends Record<string, string | undefined>>(entry: string, env: E): { args: string[]; env: E } {
  const own = path.isAbsolute(entry) ? entry : path.join(REPO, entry);
  const match = /^packages\/([^/]+)\/src\/(.+)\.ts$/.exec(path.relative(REPO, own));
  const built = match ? path.join(REPO, 'packages', match[1], 'dist', `${match[2]}.js`) : undefined;
  if (process.env.PLATFORM_NODES_FROM_BUILD !== '1' || !built || !existsSync(built)) return { args: ['--conditions=development', '--import', 'tsx', entry], env };
  return { args: [built], env: { ...env, NODE_OPTIONS: withoutDevelopmentCondition(env.NODE_OPTIONS ?? process.env.NODE_OPTIONS) } };
}

/** NODE_OPTIONS without the test run's `--conditions=development` (which sends @platform/* imports to the sources). */
export function withoutDevelopmentCondition(nodeOptions: string | undefined): string {
  return (nodeOptions ?? '').replace(/--conditions[= ]development/g, '').trim();
}
