/**
 * What must stop when an app closes but starts once the app listens (auth's internal mutual-TLS listener), when
 * Fastify takes no hook any more: registered with `onStop`, run by one preClose hook that createService installs
 * (before the app's connections drain), last registered first.
 */
import type { App } from './app-type.js';

type Stop = { name: string; stop: () => unknown };
const stops = new WeakMap<object, Stop[]>();

export function installStops(app: App): void {
  const list: Stop[] = [];
  stops.set(app, list);
  app.addHook('preClose', async () => {
    for (const s of list.splice(0).reverse()) {
      await Promise.resolve()
        .then(s.stop)
        .catch((err: unknown) => app.log.warn({ err: (err as Error).message, listener: s.name }, `${s.name} did not stop cleanly`));
    }
  });
}

/** Runs `stop` when the app closes, before its connections drain. */
export function onStop(app: App, name: string, stop: () => unknown): void {
  const list = stops.get(app);
  if (!list) throw new Error('onStop: the app was not made by createService');
  list.push({ name, stop });
}
