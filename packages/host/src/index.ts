export { startHost, SERVICE_URLS, type RunningHost } from './host.js';
export { importOldLayout, type HostedSchema } from './old-layout.js';
