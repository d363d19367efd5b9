// Migrations expand before they contract (docs/decisions/0020-versioned-messages.md, docs/deployment.md "Rolling
// upgrades"): during a rolling upgrade the nodes of the previous release run on the schema this release migrated
// to, so a migration after the baseline below may only add (tables, nullable or defaulted columns, indexes, looser
// constraints). A statement that removes or tightens what the previous release reads or writes — DROP of a table,
// column, view, function or type, RENAME, a column's type changed, SET NOT NULL, DROP DEFAULT, ADD COLUMN … NOT
// NULL without DEFAULT, ADD CONSTRAINT — is a contract step: allowed only in a file that says so on a line
// `-- contract: <why no release within one of this one depends on it>`, shipped at least one release after the
// expand step that made it safe.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../../..');

/**
 * The last migration of each service when the rule came in: earlier ones are grandfathered (registry 0002 and auth
 * 0004 contract in the same file as they expand: ADD COLUMN then SET NOT NULL, a CHECK dropped and re-added).
 */
const BASELINE: Record<string, number> = { auth: 7, registry: 2, social: 6 };

const CONTRACTING: [RegExp, string][] = [
  [/\bDROP\s+(TABLE|VIEW|MATERIALIZED\s+VIEW|FUNCTION|TYPE|SCHEMA|SEQUENCE)\b/i, 'drops an object'],
  [/\bALTER\s+TABLE\b[\s\S]*\bDROP\s+(?!CONSTRAINT\b|NOT\s+NULL\b|DEFAULT\b)(COLUMN\s+)?[a-z_"]/i, 'drops a column'],
  [/\bRENAME\b/i, 'renames'],
  [/\bALTER\s+COLUMN\s+\S+\s+(SET\s+DATA\s+)?TYPE\b/i, "changes a column's type"],
  [/\bSET\s+NOT\s+NULL\b/i, 'makes a column NOT NULL'],
  [/\bDROP\s+DEFAULT\b/i, "drops a column's default"],
  [/\bADD\s+CONSTRAINT\b/i, 'adds a constraint (the previous release may write what it refuses)'],
  [/\bTRUNCATE\b/i, 'empties a table'],
];

/** ALTER TABLE's clauses: a column added NOT NULL without a default refuses the previous release's inserts. */
function addsRequiredColumn(statement: string): boolean {
  if (!/^\s*ALTER\s+TABLE\b/i.test(statement)) return false;
  return statement
    .split(/,(?=\s*(ADD|DROP|ALTER)\b)/i)
    .some((clause) => /\bADD\s+(COLUMN\s+)?/i.test(clause) && !/\bADD\s+CONSTRAINT\b/i.test(clause) && /\bNOT\s+NULL\b/i.test(clause) && !/\bDEFAULT\b/i.test(clause));
}

/** What contracts in a migration's SQL (comments and string literals left out). */
export function contractions(sql: string): string[] {
  const code = sql.replace(/--[^\n]*/g, '').replace(/'(?:[^']|'')*'/g, "''");
  const found = new Set<string>();
  for (const statement of code.split(';')) {
    for (const [pattern, what] of CONTRACTING) if (pattern.test(statement)) found.add(what);
    if (addsRequiredColumn(statement)) found.add('adds a NOT NULL column without a default');
  }
  return [...found];
}

const marker = (sql: string) => /^--[ \t]*contract:[ \t]*\S.{10,}$/im.test(sql);

describe('migrations only expand (after the baseline) unless marked as a contract step', () => {
  it('finds what contracts, and passes what only expands', () => {
    assert.deepEqual(contractions('ALTER TABLE games DROP COLUMN legacy;'), ['drops a column']);
    assert.deepEqual(contractions('ALTER TABLE games DROP legacy;'), ['drops a column']);
    assert.deepEqual(contractions('DROP TABLE old_things;'), ['drops an object']);
    assert.deepEqual(contractions('ALTER TABLE games RENAME COLUMN a TO b;'), ['renames']);
    assert.deepEqual(contractions('ALTER TABLE games ALTER COLUMN n TYPE bigint;'), ["changes a column's type"]);
    assert.deepEqual(contractions('ALTER TABLE games ALTER COLUMN client_key SET NOT NULL;'), ['makes a column NOT NULL']);
    assert.deepEqual(contractions('ALTER TABLE games ADD COLUMN k text NOT NULL;'), ['adds a NOT NULL column without a default']);
    assert.deepEqual(contractions("ALTER TABLE a ADD CONSTRAINT c CHECK (x IN ('a'));"), ['adds a constraint (the previous release may write what it refuses)']);
    // Expansions.
    assert.deepEqual(contractions("ALTER TABLE games ADD COLUMN k text NOT NULL DEFAULT '';"), []);
    assert.deepEqual(contractions('ALTER TABLE games ADD COLUMN k text;'), []);
    assert.deepEqual(contractions('CREATE TABLE t (id uuid PRIMARY KEY, n int NOT NULL);\nCREATE INDEX t_n ON t (n);'), []);
    assert.deepEqual(contractions('ALTER TABLE a DROP CONSTRAINT c;\nALTER TABLE a ALTER COLUMN x DROP NOT NULL;'), []);
    assert.deepEqual(contractions("-- DROP TABLE in a comment\nINSERT INTO t (s) VALUES ('RENAME me');"), []);
    // The grandfathered examples of why the rule exists.
    assert.deepEqual(contractions(readFileSync(path.join(root, 'packages/registry/migrations/0002_client_key.sql'), 'utf8')), ['makes a column NOT NULL']);
    assert.ok(marker('-- contract: games.legacy unread since 0.3 (expand in 0002, readers gone in 0.3)\nALTER TABLE games DROP COLUMN legacy;'));
    assert.ok(!marker('-- contract:\nALTER TABLE games DROP COLUMN legacy;'));
  });

  it('every migration after the baseline only expands, or is marked as a contract step', () => {
    const services = readdirSync(path.join(root, 'packages')).filter((p) => {
      try {
        return readdirSync(path.join(root, 'packages', p, 'migrations')).length > 0;
      } catch {
        return false;
      }
    });
    assert.deepEqual(services.sort(), Object.keys(BASELINE).sort(), 'a baseline for every service with migrations');
    const offending: string[] = [];
    for (const service of services) {
      const dir = path.join(root, 'packages', service, 'migrations');
      for (const file of readdirSync(dir).filter((f) => /^\d+_.*\.sql$/.test(f))) {
        if (Number.parseInt(file, 10) <= BASELINE[service]) continue;
        const sql = readFileSync(path.join(dir, file), 'utf8');
        const found = contractions(sql);
        if (found.length && !marker(sql)) offending.push(`packages/${service}/migrations/${file}: ${found.join(', ')}`);
      }
    }
    assert.deepEqual(offending, [], 'contracting migrations without a `-- contract: <why>` line');
  });
});
