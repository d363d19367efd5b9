/**
 * The data directory of the older layout: one PGlite per service process at DATA_DIR/<service>/pg. On start the
 * host copies each into the one embedded instance (DATA_DIR/pg), schema by schema, and moves the old directory
 * aside (never deletes it). Plain SQL, no pg_dump: the old database's own migrations rebuild its tables in the new
 * schema, then every row travels as JSON text (exact for every type: timestamps keep their microseconds, bytea
 * its bytes) and every sequence keeps its position.
 */
import { existsSync, renameSync } from 'node:fs';
import path from 'node:path';
import { migrate, openDatabase, type Database, type EmbeddedPostgres, type Queryable } from '@platform/kit';

export interface HostedSchema {
  /** DATA_DIR/<name>/pg is where the older layout kept it. */
  name: string;
  schema: string;
  migrationsDir: string;
}

/**
 * Recorded on the schema in the same transaction as the rows, with the old cluster's system identifier: a start
 * interrupted before the move finishes it; a directory made afresh later (a service started alone) is not taken for it.
 */
const marker = (clusterId: string) => `imported from the older layout (DATA_DIR/<service>/pg), cluster ${clusterId}`;
const BATCH = 500;

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The old directories found and imported (or found imported already), each moved aside; returns the moves. */
export async function importOldLayout(
  dataDir: string,
  embedded: EmbeddedPostgres,
  services: HostedSchema[],
  log: (msg: string) => void,
): Promise<{ from: string; to: string }[]> {
  const moved: { from: string; to: string }[] = [];
  for (const svc of services) {
    const oldDir = path.join(dataDir, svc.name, 'pg');
    if (!existsSync(path.join(oldDir, 'PG_VERSION'))) continue;
    const target = await embedded.database(svc.schema);
    const source = await openDatabase({ dataDir: oldDir, schema: svc.schema });
    try {
      const id = (await source.query<{ id: string }>(`SELECT system_identifier::text AS id FROM pg_control_system()`)).rows[0].id;
      const { note, tables } = await schemaState(target, svc.schema);
      if (note !== marker(id) && tables > 0) {
        log(`${oldDir} (older layout) left in place: ${embedded.dataDir ?? 'the embedded database'} already holds schema ${svc.schema}`);
        continue;
      }
      if (note !== marker(id)) {
        log(`copying ${svc.name}'s data from ${oldDir} (older layout) into ${embedded.dataDir ?? 'the embedded database'} …`);
        await copySchema(oldDir, source, target, svc, marker(id));
      }
    } finally {
      await source.close();
    }
    let aside = `${oldDir}.old-layout`;
    if (existsSync(aside)) aside = `${aside}-${Date.now()}`;
    renameSync(oldDir, aside);
    log(`moved ${oldDir} aside to ${aside}: its data now lives in ${embedded.dataDir ?? 'the embedded database'}; delete it once you no longer need it`);
    moved.push({ from: oldDir, to: aside });
  }
  return moved;
}

async function schemaState(db: Queryable, schema: string): Promise<{ note: string | null; tables: number }> {
  const r = await db.query<{ note: string | null; tables: number }>(
    `SELECT obj_description(n.oid, 'pg_namespace') AS note,
            (SELECT count(*)::int FROM pg_tables WHERE schemaname = $1) AS tables
       FROM pg_namespace n WHERE n.nspname = $1`,
    [schema],
  );
  return r.rows[0] ?? { note: null, tables: 0 };
}

async function tablesOf(db: Queryable, schema: string): Promise<string[]> {
  return (await db.query<{ t: string }>(`SELECT tablename AS t FROM pg_tables WHERE schemaname = $1 ORDER BY tablename`, [schema])).rows.map((r) => r.t);
}

/** A failure leaves the new schema empty (dropped and made again) and the old directory where it was. */
async function copySchema(oldDir: string, source: Database, target: Database, svc: HostedSchema, note: string): Promise<void> {
  try {
    await copyInto(oldDir, source, target, svc, note);
  } catch (err) {
    await target.exec(`DROP SCHEMA ${ident(svc.schema)} CASCADE; CREATE SCHEMA ${ident(svc.schema)}`);
    throw err;
  }
}

async function copyInto(oldDir: string, source: Database, target: Database, svc: HostedSchema, note: string): Promise<void> {
  const versions = (await source.query<{ v: number }>(`SELECT version AS v FROM schema_migrations ORDER BY version`).catch(() => ({ rows: [] }))).rows;
  // The tables as the old database had them; the service's own start applies the later migrations.
  await migrate(target, svc.migrationsDir, { through: versions.length ? versions[versions.length - 1].v : 0 });
  const tables = await tablesOf(source, svc.schema);
  const present = new Set(await tablesOf(target, svc.schema));
  const missing = tables.filter((t) => !present.has(t));
  if (missing.length) throw new Error(`cannot import ${oldDir}: its tables ${missing.join(', ')} are not made by ${svc.migrationsDir}`);
  const sequences = (
    await source.query<{ name: string; last: string | null }>(`SELECT sequencename AS name, last_value::text AS last FROM pg_sequences WHERE schemaname = $1`, [svc.schema])
  ).rows;
  await target.transaction(async (tx) => {
    // Rows arrive table by table: foreign keys (and triggers) are not checked on the way in.
    await tx.query(`SET LOCAL session_replication_role = replica`);
    // Rows a migration seeded arrive again with the old data.
    if (tables.length) await tx.query(`TRUNCATE ${tables.map((t) => `${ident(svc.schema)}.${ident(t)}`).join(', ')}`);
    for (const table of tables) await copyTable(source, tx, svc.schema, table);
    for (const s of sequences) {
      if (s.last !== null) await tx.query(`SELECT setval($1::regclass, $2::bigint, true)`, [`${ident(svc.schema)}.${ident(s.name)}`, s.last]);
    }
    await tx.query(`COMMENT ON SCHEMA ${ident(svc.schema)} IS '${note}'`);
  });
}

async function copyTable(source: Database, tx: Queryable, schema: string, table: string): Promise<void> {
  const qualified = `${ident(schema)}.${ident(table)}`;
  const columns = (
    await tx.query<{ c: string }>(
      `SELECT attname AS c FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = '' ORDER BY attnum`,
      [qualified],
    )
  ).rows
    .map((r) => ident(r.c))
    .join(', ');
  await source.transaction(async (stx) => {
    await stx.query(`DECLARE old_rows NO SCROLL CURSOR FOR SELECT row_to_json(t)::text AS r FROM ${qualified} t`);
    for (;;) {
      const rows = (await stx.query<{ r: string }>(`FETCH ${BATCH} FROM old_rows`)).rows;
      if (!rows.length) break;
      await tx.query(
        `INSERT INTO ${qualified} (${columns}) OVERRIDING SYSTEM VALUE SELECT ${columns} FROM json_populate_recordset(NULL::${qualified}, $1::json)`,
        [`[${rows.map((r) => r.r).join(',')}]`],
      );
    }
  });
}
