/**
 * Encryption at rest for secrets the service must be able to read back (registry passwords): AES-256-GCM with
 * a key from VIGIL_ENCRYPTION_KEY, or one generated once into `<data dir>/encryption.key` (mode 0600).
 * Nodes sharing a database must share the key: src/system/encryption-key.ts decides which is used and checks it.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const VERSION = 'v1';

/** Where a generated key is kept when VIGIL_ENCRYPTION_KEY is not set. */
export function keyFilePath(dataDir: string): string {
  return join(dataDir, 'encryption.key');
}

export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  static fromConfig(configuredKey: string | null, dataDir: string): SecretBox {
    if (configuredKey) return new SecretBox(createHash('sha256').update(configuredKey).digest());
    const path = keyFilePath(dataDir);
    if (!existsSync(path)) {
      mkdirSync(dataDir, { recursive: true });
      writeFileSync(path, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
    }
    return new SecretBox(Buffer.from(readFileSync(path, 'utf8').trim(), 'base64'));
  }

  /** A key for another purpose (signing page tokens, ...), derived so the master key itself is never reused. */
  deriveKey(purpose: string): Buffer {
    return createHmac('sha256', this.key).update(`vigil:${purpose}`).digest();
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':');
  }

  open(sealed: string): string {
    const [version, iv, tag, body] = sealed.split(':');
    if (version !== VERSION || !iv || !tag || body === undefined) throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
  }
}
