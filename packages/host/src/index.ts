export { consoleOrigins, corsWithConsole, metricsPortClashes, startHost, type RunningHost } from './host.js';
export { importOldLayout, type HostedSchema } from './old-layout.js';
