/**
 * Content-addressed storage of module bytes. The registry only needs these
 * four operations, so another store (S3, a shared volume) can replace the
 * filesystem one. With several nodes the directory must be shared.
 */
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';

export interface BlobStore {
  /** Stores bytes under their SHA-256 (hex); storing the same bytes twice is a no-op. */
  put(sha256: string, bytes: Buffer): Promise<void>;
  get(sha256: string): Promise<Buffer | null>;
  has(sha256: string): Promise<boolean>;
  delete(sha256: string): Promise<void>;
}

const SHA = /^[0-9a-f]{64}$/;

export class FsBlobStore implements BlobStore {
  constructor(readonly dir: string) {}

  private file(sha256: string): string {
    if (!SHA.test(sha256)) throw new Error('blob names are SHA-256 hex digests');
    return path.join(this.dir, sha256.slice(0, 2), sha256);
  }

  async put(sha256: string, bytes: Buffer): Promise<void> {
    const file = this.file(sha256);
    await mkdir(path.dirname(file), { recursive: true });
    // Write aside, then rename: readers never see a half-written blob.
    const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(tmp, bytes, { mode: 0o640 });
    await rename(tmp, file);
  }

  async get(sha256: string): Promise<Buffer | null> {
    try {
      return await readFile(this.file(sha256));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async has(sha256: string): Promise<boolean> {
    return (await this.get(sha256)) !== null;
  }

  async delete(sha256: string): Promise<void> {
    await rm(this.file(sha256), { force: true });
  }
}
