/**
 * `npm run -w @platform/auth rotate-key [-- --emergency [--retire-previous]] [--offline]`:
 * starts a signing-key rotation against the configured database. The nodes'
 * periodic tick activates the new key after AUTH_KEY_PROPAGATION_SECONDS and
 * retires the old one after the access-token lifetime.
 */
import { ConfigError } from '@platform/kit';
import { readAuthConfig } from './config.js';
import { KEY_ROTATION_CHANNEL, keyTimings, rotateSigningKey } from './services/keys.js';
import { openAuthStores, resolveMasterKey } from './service.js';
import { BUS_NOTICE_WIRE } from './services/notice-wire.js';

try {
  const config = readAuthConfig(process.env);
  if (!config.databaseUrl && !process.argv.includes('--offline')) {
    // Embedded PGlite belongs to one process: writing it beside a running service corrupts it.
    console.error('DATABASE_URL is not set: with the embedded database use POST /admin/keys/rotate, or stop the service and pass --offline');
    process.exit(2);
  }
  config.masterKey = resolveMasterKey(config, (m) => console.warn(m));
  const emergency = process.argv.includes('--emergency');
  const { db, state } = await openAuthStores(config);
  const r = await rotateSigningKey(db, config.masterKey, keyTimings(config), { nodeId: `${config.nodeId}-cli`, ip: null }, {
    emergency,
    retirePrevious: process.argv.includes('--retire-previous'),
  });
  if (emergency) await state.publish(KEY_ROTATION_CHANNEL, BUS_NOTICE_WIRE.encode({ kid: r.kid }));
  console.log(JSON.stringify({ kid: r.kid, state: r.state, activate_at: r.activateAt }));
  await state.close();
  await db.close();
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(2);
  }
  throw err;
}
