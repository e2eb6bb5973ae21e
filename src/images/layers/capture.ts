/**
 * Which files are read into memory for catalogers, and the bytes held at once. A file is buffered only while its
 * catalogers parse it; afterwards its content is kept (within the same budget, oldest dropped first) only so that
 * a later hardlink to it in the same layer can be cataloged too.
 */
import type { Cataloger } from '../../ecosystems/model.js';
import type { FsNode } from './tree.js';

interface KeptContent {
  /** The node the content was read for: if the path has since been replaced, the content is stale. */
  node: FsNode;
  content: Buffer;
}

export class CaptureBudget {
  /** Insertion order is eviction order. */
  private readonly kept = new Map<string, KeptContent>();
  private keptBytes = 0;

  constructor(
    private readonly maxFileBytes: number,
    private readonly maxTotalBytes: number,
    private readonly warn: (message: string) => void,
  ) {}

  /** The catalogers of `matching` allowed to see a file of `size` bytes (the others are reported). */
  eligible(path: string, size: number, matching: readonly Cataloger[]): Cataloger[] {
    return matching.filter((cataloger) => {
      const cap = Math.min(cataloger.maxFileBytes, this.maxFileBytes);
      if (size <= cap) return true;
      this.warn(`${path} (${size} bytes) was not cataloged by '${cataloger.name}': it is larger than the ${cap}-byte limit for one file`);
      return false;
    });
  }

  /**
   * Whether a file of `size` bytes may be buffered now; if so, drops kept content until it fits beside it.
   * Reports the file when it cannot fit at all.
   */
  reserve(path: string, size: number, catalogers: readonly Cataloger[]): boolean {
    if (size > this.maxTotalBytes) {
      const names = catalogers.map((c) => `'${c.name}'`).join(', ');
      this.warn(`${path} (${size} bytes) was not cataloged by ${names}: it is larger than the ${this.maxTotalBytes}-byte buffer limit`);
      return false;
    }
    for (const [keptPath, kept] of this.kept) {
      if (this.keptBytes + size <= this.maxTotalBytes) break;
      this.kept.delete(keptPath);
      this.keptBytes -= kept.content.length;
    }
    return true;
  }

  /** Keeps content read after `reserve` (which made room for it) for hardlinks to `path`. */
  keep(path: string, node: FsNode, content: Buffer): void {
    const previous = this.kept.get(path);
    if (previous) {
      this.kept.delete(path);
      this.keptBytes -= previous.content.length;
    }
    this.kept.set(path, { node, content });
    this.keptBytes += content.length;
  }

  /** Content kept for `path`, if it is still the content of `node`. */
  contentOf(path: string, node: FsNode): Buffer | undefined {
    const kept = this.kept.get(path);
    return kept?.node === node ? kept.content : undefined;
  }

  clear(): void {
    this.kept.clear();
    this.keptBytes = 0;
  }
}
