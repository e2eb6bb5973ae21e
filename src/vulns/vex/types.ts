/**
 * What the VEX writers take: the statements (status annotations) recorded for the packages of one image, in the
 * shape the API stores them. The writers are pure functions of this input: no clock, no randomness, no database,
 * so the same input always gives the same document.
 */

/** The four VEX status labels (CISA's Minimum Requirements for VEX; OpenVEX uses them verbatim). */
export type VexStatus = 'not_affected' | 'affected' | 'fixed' | 'under_investigation';

/**
 * The upstream API's justification enum (snake_case), stored with annotations: the five CISA/OpenVEX labels plus
 * `fix_not_planned`, which is not a VEX justification (each writer documents how it carries it).
 */
export type VexJustification =
  | 'component_not_present'
  | 'vulnerable_code_not_present'
  | 'vulnerable_code_not_in_execute_path'
  | 'vulnerable_code_cannot_be_controlled_by_adversary'
  | 'inline_mitigations_already_exist'
  | 'fix_not_planned';

/** A package in the image; `purl` may be '' when unknown. */
export interface VexProduct {
  purl: string;
  name: string;
  version: string;
  type: string;
}

export interface VexStatement {
  vulnerabilityId: string;
  aliases: string[];
  description?: string;
  url?: string;
  product: VexProduct;
  status: VexStatus;
  justification?: VexJustification;
  impactStatement?: string;
  actionStatement?: string;
  statusNotes?: string;
  /** RFC 3339, when the status was last set. */
  timestamp: string;
}

export interface VexDocumentInput {
  /** The image's manifest digest, `sha256:...`. */
  imageDigest: string;
  /** Repository without tag (e.g. `docker.io/library/debian`), for the image's package URL. */
  imageName?: string;
  /** Who made the statements, e.g. the account or user. */
  author: string;
  /** Document time, RFC 3339, passed in so the writers stay deterministic. */
  timestamp: string;
  /** Stable document id/URN chosen by the caller (e.g. a `urn:uuid:`). */
  documentId: string;
  toolName: string;
  toolVersion: string;
  statements: VexStatement[];
}
