/**
 * `npm run grant-role -w @platform/auth -- <email | account id> <role>… [--remove] [--offline]`: adds (or, with
 * --remove, takes away) roles of an account directly in the configured database — how the first admin is made
 * (docs/auth.md, "Sanctions"). Roles: player, moderator, admin. The account's tokens carry the new roles from
 * its next sign-in or refresh; a role taken away also refuses the tokens issued before (a `roles_changed` notice). Prints {"id", "roles"}; exit 1 when no account matches, 2 on a usage error.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, openEmbeddedPostgres, type EmbeddedPostgres } from '@platform/kit';
import { readAuthConfig } from './config.js';
import { GRANTABLE_ROLES, grantRoles } from './services/admin.js';
import { createRevoker } from './services/revocation.js';
import { openAuthStores } from './service.js';

const USAGE = 'usage: grant-role <email | account id> <player|moderator|admin>… [--remove] [--offline]';

try {
  const args = process.argv.slice(2);
  const flags = new Set(args.filter((a) => a.startsWith('--')));
  const [who, ...roles] = args.filter((a) => !a.startsWith('--'));
  for (const f of flags) if (f !== '--remove' && f !== '--offline') throw new ConfigError([`unknown option ${f}`, USAGE]);
  if (!who || !roles.length) throw new ConfigError([USAGE]);
  const bad = roles.filter((r) => !(GRANTABLE_ROLES as readonly string[]).includes(r));
  if (bad.length) throw new ConfigError([`not a role: ${bad.join(', ')} (roles: ${GRANTABLE_ROLES.join(', ')})`]);
  const config = readAuthConfig(process.env);
  if (!config.databaseUrl && !flags.has('--offline')) {
    // Embedded PGlite belongs to one process: writing it beside a running service corrupts it.
    console.error('DATABASE_URL is not set: with the embedded database stop the service and pass --offline (or use PUT /admin/accounts/{id}/roles as an admin)');
    process.exit(2);
  }
  let embedded: EmbeddedPostgres | undefined;
  if (!config.databaseUrl) {
    // The embedded database where it is: npm start keeps every service in DATA_DIR/pg, auth started alone in
    // DATA_DIR/auth/pg. Never a new one: an empty database here would only hide a wrong DATA_DIR.
    const dir = [path.join(config.dataDir, 'pg'), path.join(config.authDir, 'pg')].find((d) => existsSync(path.join(d, 'PG_VERSION')));
    if (!dir) {
      console.error(`no embedded database under ${path.resolve(config.dataDir)} (neither pg/ of npm start nor auth/pg/): set DATA_DIR to the platform's data directory`);
      process.exit(1);
    }
    embedded = await openEmbeddedPostgres(dir);
  }
  const { db, state } = await openAuthStores(config, embedded);
  try {
    // A role taken away is announced like a revocation (written to the outbox, which the running service delivers).
    const revoker = createRevoker({ config, db, state, log: { warn: (obj, msg) => console.error(msg, obj) } });
    const r = await grantRoles({ db, revoker }, who, roles, { remove: flags.has('--remove'), who: { nodeId: `${config.nodeId}-cli`, ip: null, actor: 'cli' } });
    if (!r) {
      console.error(`no account with the email or id ${who}`);
      process.exitCode = 1;
    } else console.log(JSON.stringify(r));
  } finally {
    await state.close();
    await db.close();
    await embedded?.close();
  }
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(2);
  }
  throw err;
}
