/**
 * The shared vocabulary of image analysis: what a layer walk yields (files) and the content scanners that read
 * along. Nothing here knows about HTTP or the database. The package vocabulary (package types, CatalogedPackage,
 * Cataloger, DistroInfo) is the ecosystems' (src/ecosystems/model.ts).
 */
export type FileType = 'file' | 'dir' | 'symlink' | 'hardlink' | 'char' | 'block' | 'fifo';

/** One path of the image's final filesystem view. */
export interface FileRecord {
  path: string;
  type: FileType;
  /** Permission and special bits (e.g. 0o4755 for a setuid binary). */
  mode: number;
  uid: number;
  gid: number;
  size: number;
  /** Hex SHA-256 of the content, for regular files. */
  sha256?: string;
  /** Target of a symlink or hardlink. */
  linkTarget?: string;
}

/**
 * Reads file content during the layer walk for something other than packages: retrieved files and the secret and
 * content searches. Its results live on the file's node like catalog results, so they vanish with the file.
 */
export interface ContentScanner {
  /** Short name, used as the key of its results. */
  readonly name: string;
  /** Whether to read a regular file of `size` bytes at `path`; files not wanted are skipped without a warning. */
  wants(path: string, size: number): boolean;
  /** What to record for the file, or undefined for nothing. Must not throw on any content. */
  scan(path: string, content: Buffer): unknown;
}
