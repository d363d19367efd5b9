import type { BuildResult } from 'esbuild';
/** Builds the single-file module into `outfile` (default dist/platform-client.min.js); answers esbuild's result. */
export function bundleBrowserModule(outfile?: string, write?: boolean): Promise<BuildResult<{ metafile: true; write: boolean }>>;
