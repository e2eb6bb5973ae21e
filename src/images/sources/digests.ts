/**
 * Content digests: compute them, check buffers against them, and check streams while they flow so that large
 * layers are verified without being held in memory.
 */
import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { DigestMismatchError, UnsupportedMediaTypeError } from './errors.js';

const SUPPORTED_ALGORITHMS = new Set(['sha256', 'sha512']);

export function sha256Digest(data: Buffer | string): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

/** The hex part of a digest (for blob paths such as `blobs/sha256/<hex>`). */
export function digestHex(digest: string): string {
  return digest.slice(digest.indexOf(':') + 1);
}

export function digestAlgorithm(digest: string): string {
  return digest.slice(0, digest.indexOf(':'));
}

function hasherFor(digest: string): Hash {
  const algorithm = digestAlgorithm(digest);
  if (!SUPPORTED_ALGORITHMS.has(algorithm)) {
    // Reported as a media-type problem because it is the same situation: content we cannot check or read.
    throw new UnsupportedMediaTypeError(`digest algorithm ${algorithm}`, 'only sha256 and sha512 digests can be verified');
  }
  return createHash(algorithm);
}

/** Digest of `data` with the same algorithm as `expected`. */
export function digestLike(expected: string, data: Buffer): string {
  return `${digestAlgorithm(expected)}:${hasherFor(expected).update(data).digest('hex')}`;
}

/** Throws DigestMismatchError unless `data` hashes to `expected` (and has `expectedSize` bytes, when given). */
export function verifyBuffer(data: Buffer, expected: string, what: string, expectedSize?: number): void {
  if (expectedSize !== undefined && data.length !== expectedSize) {
    throw new DigestMismatchError(what, `${expected} (${expectedSize} bytes)`, `${data.length} bytes`);
  }
  const actual = digestLike(expected, data);
  if (actual !== expected) throw new DigestMismatchError(what, expected, actual);
}

export interface VerifyingStreamOptions {
  /** What the content is, for the error message (e.g. `layer sha256:... of docker.io/library/nginx`). */
  what: string;
  /** When known, more bytes than this fail at once (no endless stream), fewer fail at the end. */
  expectedSize?: number;
}

/**
 * A pass-through stream that hashes what flows through it and, at the end, errors with DigestMismatchError if
 * the content did not match. Data is passed on before it is verified, so consumers must treat the stream's error
 * as failure of everything they derived from it (a pipeline through a decompressor does this naturally).
 */
export function verifyingStream(expected: string, options: VerifyingStreamOptions): Transform {
  const hash = hasherFor(expected);
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      seen += chunk.length;
      if (options.expectedSize !== undefined && seen > options.expectedSize) {
        callback(new DigestMismatchError(options.what, `${expected} (${options.expectedSize} bytes)`, `more than ${options.expectedSize} bytes`));
        return;
      }
      hash.update(chunk);
      callback(null, chunk);
    },
    flush(callback: TransformCallback) {
      if (options.expectedSize !== undefined && seen !== options.expectedSize) {
        callback(new DigestMismatchError(options.what, `${expected} (${options.expectedSize} bytes)`, `${seen} bytes`));
        return;
      }
      const actual = `${digestAlgorithm(expected)}:${hash.digest('hex')}`;
      callback(actual === expected ? null : new DigestMismatchError(options.what, expected, actual));
    },
  });
}
