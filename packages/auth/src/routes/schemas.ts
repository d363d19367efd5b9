import { Type } from 'typebox';
import { DEVICE_PLATFORMS } from '../services/accounts.js';

export const Email = Type.String({ format: 'email', maxLength: 254 });
/** The policy (10–256) is checked by the service so it can answer weak_password; this only bounds the body. */
export const Password = Type.String({ minLength: 1, maxLength: 1024 });
export const Fingerprint = Type.String({ minLength: 8, maxLength: 512 });
export const DevicePlatformSchema = Type.Union(DEVICE_PLATFORMS.map((p) => Type.Literal(p)));
export const Device = Type.Object({ fingerprint: Fingerprint, platform: Type.Optional(DevicePlatformSchema) }, { additionalProperties: false });
export const Provider = Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z0-9_]+$' });
export const Ticket = Type.String({ minLength: 1, maxLength: 16384 });
export const Nonce = Type.String({ minLength: 1, maxLength: 512 });

export const TokenResponse = Type.Object({
  access_token: Type.String(),
  refresh_token: Type.String(),
  expires_in: Type.Integer(),
  token_type: Type.Literal('Bearer'),
  account_id: Type.String({ format: 'uuid' }),
});
