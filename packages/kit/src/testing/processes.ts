/**
 * How the tests run a package's entry as a process (a service node, a CLI): from its compiled build
 * (`packages/<pkg>/dist/<file>.js`) when scripts/test.mjs found the build current (PLATFORM_NODES_FROM_BUILD=1: about
 * half the start-up CPU of compiling the sources through tsx), else from the sources through tsx. The build resolves
 * @platform/* to their builds too, so `--conditions=development` is taken out of the process's NODE_OPTIONS.
 */

/** `entry`: `…packages/<pkg>/src/<file>.ts`, relative to the working directory or absolute. */
export function nodeCommand<E extends Record<string, string | undefined>>(entry: string, env: E): { args: string[]; env: E } {
  const built = entry.replace(/^(.*\bpackages\/[^/]+)\/src\/(.+)\.ts$/, '$1/dist/$2.js');
  if (process.env.PLATFORM_NODES_FROM_BUILD !== '1' || built === entry) return { args: ['--conditions=development', '--import', 'tsx', entry], env };
  const nodeOptions = (env.NODE_OPTIONS ?? process.env.NODE_OPTIONS ?? '').replace(/--conditions[= ]development/g, '').trim();
  return { args: [built], env: { ...env, NODE_OPTIONS: nodeOptions } };
}
