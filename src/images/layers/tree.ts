/**
 * The image filesystem as layers are applied: a tree of path components, so that replacing or whiting out a
 * directory drops its whole subtree in one step, and catalog results stored on a node vanish with it.
 * Every node remembers the layer that last wrote it, because whiteouts only hide what lower layers wrote.
 */
import type { FileRecord } from '../model.js';
import type { CatalogedPackage } from '../../ecosystems/model.js';
import { UnsafePathError } from './errors.js';
import { ROOT, joinPath, pathComponents } from './paths.js';

export interface FsNode {
  /** Undefined only for the root. */
  record?: FileRecord;
  /** Index of the layer that last wrote this path (or created it as a missing parent). */
  layer: number;
  /** Present for directories. */
  children?: Map<string, FsNode>;
  /** Catalog results of this file, by cataloger name. */
  results?: Map<string, CatalogedPackage[]>;
  /** Content scanner results of this file, by scanner name. */
  scans?: Map<string, unknown>;
}

/** Parents missing from a layer (tars need not list them) are created the way runtimes create them. */
const IMPLICIT_DIR_MODE = 0o755;

export class FsTree {
  private readonly root: FsNode = { layer: -1, children: new Map() };

  constructor(private readonly warn: (message: string) => void) {}

  /** The node at `path`, never looking through symlinks. */
  get(path: string): FsNode | undefined {
    let node: FsNode | undefined = this.root;
    for (const name of pathComponents(path)) {
      node = node.children?.get(name);
      if (!node) return undefined;
    }
    return node;
  }

  /**
   * Writes `record` at its path for `layer`. A directory over a directory only updates metadata (its content
   * stays, as in overlayfs); anything else replaces the old node and its subtree.
   */
  set(record: FileRecord, layer: number): FsNode {
    const names = pathComponents(record.path);
    const name = names.pop();
    if (name === undefined) throw new Error('the root cannot be replaced');
    const parent = this.directoryAt(record.path, names, layer);
    const existing = parent.children!.get(name);
    if (existing?.children && record.type === 'dir') {
      existing.record = record;
      existing.layer = layer;
      return existing;
    }
    const node: FsNode = { record, layer, children: record.type === 'dir' ? new Map() : undefined };
    parent.children!.set(name, node);
    return node;
  }

  /** `.wh.<name>`: hides what lower layers wrote at `path` (and below); what `layer` itself wrote stays. */
  whiteout(path: string, layer: number): void {
    const names = pathComponents(path);
    const name = names.pop();
    if (name === undefined) return;
    const parent = this.get(ROOT + names.join('/'));
    const target = parent?.children?.get(name);
    if (target && !keepOnlyLayer(target, layer)) parent!.children!.delete(name);
  }

  /** `.wh..wh..opq`: hides everything lower layers wrote inside the directory at `path`. */
  makeOpaque(path: string, layer: number): void {
    const dir = this.get(path);
    if (!dir?.children) return;
    for (const [name, child] of dir.children) {
      if (!keepOnlyLayer(child, layer)) dir.children.delete(name);
    }
  }

  /** Every node except the root, parents before children, names in byte order (deterministic output). */
  *entries(): Generator<FsNode & { record: FileRecord }> {
    const stack: FsNode[] = [this.root];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (node.record) yield node as FsNode & { record: FileRecord };
      if (node.children) {
        const names = [...node.children.keys()].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
        for (const name of names) stack.push(node.children.get(name)!);
      }
    }
  }

  /**
   * The directory that will hold `path`, creating missing parents. A parent that is a symlink is refused: a
   * runtime would write through it, and we neither follow symlinks nor let a layer hide files behind one.
   */
  private directoryAt(path: string, names: string[], layer: number): FsNode {
    let node = this.root;
    let walked = ROOT;
    for (const name of names) {
      walked = joinPath(walked, name);
      let child = node.children!.get(name);
      if (child?.record?.type === 'symlink') {
        throw new UnsafePathError(path, `would be written through the symlink ${walked} -> ${child.record.linkTarget ?? ''}`);
      }
      if (!child?.children) {
        if (child) this.warn(`${walked} was a ${child.record?.type ?? 'file'} and became a directory to hold ${path}`);
        child = {
          record: { path: walked, type: 'dir', mode: IMPLICIT_DIR_MODE, uid: 0, gid: 0, size: 0 },
          layer,
          children: new Map(),
        };
        node.children!.set(name, child);
      }
      node = child;
    }
    return node;
  }
}

/**
 * Removes from `node`'s subtree everything written by layers below `layer`. Returns whether `node` itself must
 * stay: it was written by `layer`, or holds something that was.
 */
function keepOnlyLayer(node: FsNode, layer: number): boolean {
  let keep = node.layer === layer;
  if (node.children) {
    for (const [name, child] of node.children) {
      if (keepOnlyLayer(child, layer)) keep = true;
      else node.children.delete(name);
    }
  }
  return keep;
}
