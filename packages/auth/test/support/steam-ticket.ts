/**
 * Builds Steam-style encrypted app tickets with the format's real encryption,
 * the exact inverse of `steam-appticket`'s parseEncryptedAppTicket:
 *
 *   outer protobuf EncryptedAppTicket {
 *     1 ticket_version_no (uint32) = 2
 *     2 crc_encryptedticket (uint32) = CRC-32 of the plaintext
 *     3 cb_encrypteduserdata (uint32) = length of the user data
 *     4 cb_encrypted_appownershipticket (uint32)
 *     5 encrypted_ticket (bytes) = AES-256-ECB(iv) || AES-256-CBC/PKCS#7(plaintext, iv)
 *   }
 *   plaintext = userData || ownershipTicket || u64 || u64 || u32   (version 2 trailer)
 *               || salt(8) || SHA-1(everything before the salt || salt) || u32
 *   ownershipTicket (little endian) = u32 length (incl. itself) | u32 version 4 |
 *     u64 steam id | u32 app id | u32 external ip | u32 internal ip | u32 flags |
 *     u32 generated | u32 expires | u16 licence count, u32 each | u16 dlc count | u16 reserved
 */
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

export interface EncryptedAppTicketInput {
  appId: number;
  /** 64-bit steam id as a decimal string (e.g. '76561197960287930'). */
  steamId: string;
  /** The app's 32-byte ticket key (Buffer or hex). */
  key: Buffer | string;
  /** Issue time of the ownership ticket; now when absent. */
  issuedAt?: Date;
  /** Data the game put into the ticket request (Steam's pDataToInclude). */
  userData?: Buffer;
  /** Licence (package) ids in the ownership ticket; [0] when absent. */
  licenses?: number[];
}

/** A 64-bit steam id of an individual, public-universe, desktop account. */
export function individualSteamId(accountId: number): string {
  return ((1n << 56n) | (1n << 52n) | (1n << 32n) | BigInt(accountId >>> 0)).toString();
}

function varint(n: number): Buffer {
  const out: number[] = [];
  let v = n >>> 0;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return Buffer.from(out);
}

const uint32Field = (field: number, value: number) => Buffer.concat([varint(field << 3), varint(value)]);
const bytesField = (field: number, value: Buffer) => Buffer.concat([varint((field << 3) | 2), varint(value.length), value]);

function ownershipTicket(input: EncryptedAppTicketInput): Buffer {
  const generated = Math.floor((input.issuedAt ?? new Date()).getTime() / 1000);
  const licenses = input.licenses ?? [0];
  const size = 4 + 4 + 8 + 4 * 7 + 2 + 4 * licenses.length + 2 + 2;
  const b = Buffer.alloc(size);
  let o = 0;
  o = b.writeUInt32LE(size, o);
  o = b.writeUInt32LE(4, o); // ownership ticket version
  o = b.writeBigUInt64LE(BigInt(input.steamId), o);
  o = b.writeUInt32LE(input.appId >>> 0, o);
  o = b.writeUInt32LE(0x7f000001, o); // external ip
  o = b.writeUInt32LE(0x0a000001, o); // internal ip
  o = b.writeUInt32LE(0, o); // ownership flags
  o = b.writeUInt32LE(generated, o);
  o = b.writeUInt32LE(generated + 21 * 24 * 3600, o); // expires (Steam: about three weeks)
  o = b.writeUInt16LE(licenses.length, o);
  for (const l of licenses) o = b.writeUInt32LE(l, o);
  o = b.writeUInt16LE(0, o); // dlc count
  b.writeUInt16LE(0, o); // reserved
  return b;
}

/** Steam's symmetric scheme: the IV is sent AES-256-ECB encrypted, then the data AES-256-CBC. */
function symmetricEncrypt(plaintext: Buffer, key: Buffer): Buffer {
  const iv = randomBytes(16);
  const ivCipher = createCipheriv('aes-256-ecb', key, null);
  ivCipher.setAutoPadding(false);
  const encryptedIv = Buffer.concat([ivCipher.update(iv), ivCipher.final()]);
  const dataCipher = createCipheriv('aes-256-cbc', key, iv);
  return Buffer.concat([encryptedIv, dataCipher.update(plaintext), dataCipher.final()]);
}

/** The raw ticket bytes, as the store's GetEncryptedAppTicket hands them to the game. */
export function buildEncryptedAppTicket(input: EncryptedAppTicketInput): Buffer {
  const key = typeof input.key === 'string' ? Buffer.from(input.key, 'hex') : input.key;
  if (key.length !== 32) throw new Error('key must be 32 bytes');
  const userData = input.userData ?? Buffer.alloc(0);
  const ownership = ownershipTicket(input);
  const trailer = Buffer.alloc(8 + 8 + 4); // version-2 fields the parser skips
  const signed = Buffer.concat([userData, ownership, trailer]);
  const salt = randomBytes(8);
  const hash = createHash('sha1').update(signed).update(salt).digest();
  const plaintext = Buffer.concat([signed, salt, hash, Buffer.alloc(4)]);
  return Buffer.concat([
    uint32Field(1, 2),
    uint32Field(2, crc32(plaintext)),
    uint32Field(3, userData.length),
    uint32Field(4, ownership.length),
    bytesField(5, symmetricEncrypt(plaintext, key)),
  ]);
}
