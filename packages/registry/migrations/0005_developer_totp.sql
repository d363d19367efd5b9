-- A developer's second factor (docs/registry.md, "Second factor (TOTP)"; decision 0026): one authenticator-app secret
-- per developer (RFC 6238, kit totp.ts), encrypted at rest under the master key, pending until confirmed with a code;
-- single-use recovery codes stored as SHA-256 hashes. last_step: the newest time step accepted (no code twice);
-- failures/locked_until: the factor's own lockout (five wrong codes, 15 minutes).
CREATE TABLE developer_totp (
  developer_id uuid PRIMARY KEY REFERENCES developers (id) ON DELETE CASCADE,
  secret_enc text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  confirmed_at timestamptz,
  last_step bigint NOT NULL DEFAULT 0,
  failures integer NOT NULL DEFAULT 0,
  locked_until timestamptz
);

CREATE TABLE developer_recovery_codes (
  developer_id uuid NOT NULL REFERENCES developers (id) ON DELETE CASCADE,
  code_hash text NOT NULL,
  used_at timestamptz,
  PRIMARY KEY (developer_id, code_hash)
);

-- Developer tokens are stateless JWTs: a token carries the generation it was issued under (claim `gen`; a token of
-- the previous release has none and counts as 0) and is refused once the developer's generation moved on. Adding or
-- removing the factor moves it, so every other token of the developer stops working at once.
ALTER TABLE developers ADD COLUMN token_generation integer NOT NULL DEFAULT 0;
