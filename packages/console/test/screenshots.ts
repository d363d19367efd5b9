// `npm run screenshots -w @platform/console`: the browser tests' flows again (test/flows.ts), with a screenshot of
// each main page written to docs/console/<name>.png (docs/console.md shows them). Needs /usr/bin/chromium.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { accountFlow, developerFlow, moderatorFlow, superAdminFlow, type Snap } from './flows.js';
import { openConsole, startRig, type ConsoleTab } from './support.js';

const out = path.resolve(import.meta.dirname, '..', '..', '..', 'docs', 'console');
mkdirSync(out, { recursive: true });
const snapper = (tab: ConsoleTab): Snap => async (name) => {
  await tab.page.screenshot({ path: path.join(out, `${name}.png`), fullPage: true });
  console.log(`wrote docs/console/${name}.png`);
};

const rig = await startRig();
try {
  const dev = await openConsole(rig);
  const { email } = await developerFlow(rig, dev, snapper(dev));
  await dev.context.close();
  const admin = await openConsole(rig);
  await superAdminFlow(admin, email, snapper(admin));
  await admin.context.close();
  const mod = await openConsole(rig);
  await moderatorFlow(rig, mod, snapper(mod));
  await mod.context.close();
  const acc = await openConsole(rig);
  await accountFlow(rig, acc, snapper(acc));
  await acc.context.close();
} finally {
  await rig.close();
}
