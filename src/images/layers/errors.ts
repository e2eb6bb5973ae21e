/**
 * Why a layer walk stopped. Every failure of the walker is one of these, with a message written for the person
 * who submitted the image (what is wrong, in which layer, and what they can do about it).
 */

/** `sha256:0123456789ab…`: enough of a digest to find the layer, short enough for a message. */
export function shortDigest(digest: string): string {
  const colon = digest.indexOf(':');
  const hex = colon >= 0 ? digest.slice(colon + 1) : digest;
  return hex.length > 12 ? `${digest.slice(0, colon + 1)}${hex.slice(0, 12)}…` : digest;
}

export abstract class LayerError extends Error {
  /** Whether analysing the same image again may succeed (the blob could not be read), or the image is the problem. */
  readonly retryable: boolean = false;

  constructor(
    message: string,
    /** Digest of the layer being read when the walk stopped, when known. */
    readonly layerDigest?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

export type LayerLimitName = 'maxExpandedBytes' | 'maxEntries' | 'maxZstdWindowBytes';

/** The image is bigger than the walker was allowed to expand: a decompression bomb, or limits set too low. */
export class LayerLimitError extends LayerError {
  constructor(
    readonly limit: LayerLimitName,
    readonly limitValue: number,
    layerDigest: string | undefined,
    detail: string,
  ) {
    const where = layerDigest ? `layer ${shortDigest(layerDigest)}` : 'the image';
    super(
      `${where} exceeds the ${limit} limit of ${limitValue}: ${detail}. ` +
        'The image may be a decompression bomb; if it is genuine, raise the limit.',
      layerDigest,
    );
  }
}

/** The layer blob is not a readable (gzip/zstd-compressed) tar archive: truncated, corrupt or of another format. */
export class CorruptLayerError extends LayerError {
  constructor(
    layerDigest: string,
    /** What is wrong, e.g. 'is truncated (unexpected end of gzip stream)'. */
    readonly problem: string,
    cause?: unknown,
  ) {
    super(`layer ${shortDigest(layerDigest)} ${problem}. Re-push the image or check the registry's copy of the blob.`, layerDigest, {
      cause,
    });
  }
}

/** A tar entry names a path or link that could reach outside the image or smuggle content past the catalogers. */
export class UnsafePathError extends LayerError {
  constructor(
    /** The entry name (or link target) exactly as the archive gives it. */
    readonly entryName: string,
    /** Why it is refused, e.g. 'climbs above the image root with ".."'. */
    readonly reason: string,
    layerDigest?: string,
  ) {
    const where = layerDigest ? `layer ${shortDigest(layerDigest)}` : 'a layer';
    super(
      `${where} contains an unsafe entry ${JSON.stringify(entryName)}: it ${reason}. ` +
        'The image may be malicious and was not analysed.',
      layerDigest,
    );
  }

  /** The same error, naming the layer it was found in (path checks do not know the layer). */
  inLayer(layerDigest: string): UnsafePathError {
    return this.layerDigest ? this : new UnsafePathError(this.entryName, this.reason, layerDigest);
  }
}

/** The blob could not be read at all (registry or storage failure); the image itself may be fine. */
export class LayerSourceError extends LayerError {
  override readonly retryable = true;

  constructor(layerDigest: string, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(`could not read layer ${shortDigest(layerDigest)}: ${why}. Retry the analysis; if it persists, check the registry.`, layerDigest, {
      cause,
    });
  }
}
