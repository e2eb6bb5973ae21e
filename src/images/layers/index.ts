/** The layer walker: image layer blobs -> final filesystem view and catalog results. */
export { walkLayers, DEFAULT_LAYER_LIMITS } from './walker.js';
export type { LayerBlob, LayerLimits, WalkOptions, WalkProgress, WalkResult } from './walker.js';
export { CorruptLayerError, LayerError, LayerLimitError, LayerSourceError, UnsafePathError, shortDigest } from './errors.js';
export type { LayerLimitName } from './errors.js';
export { decompressLayer, detectCompression, describeDecompressionFailure } from './decompress.js';
export type { LayerCompression } from './decompress.js';
export { normaliseEntryPath } from './paths.js';
