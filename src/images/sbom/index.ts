/** SBOM export (native syft-like JSON, CycloneDX, SPDX) and import (the same three formats). */
export type { SbomImage, SbomInput, SbomLayer, SbomPackage } from './input.js';
export { toNativeSbom, NATIVE_SCHEMA_URL, NATIVE_SCHEMA_VERSION, type NativeSbom } from './native.js';
export { toCycloneDx, type CycloneDxDocument, type CycloneDxOptions, type CycloneDxSpecVersion } from './cyclonedx.js';
export { toSpdx, type SpdxDocument, type SpdxOptions } from './spdx.js';
export { detectSbomFormat, parseSbomJson, readSbomPackages, SbomReadError, type SbomFormat, type SbomReadResult } from './readers.js';
export { readSbomImageMetadata, type SbomImageMetadata } from './read-image-metadata.js';
