/**
 * SPDX 2.3 JSON, as a JSON Schema written from the SPDX 2.3 specification (clauses 6-11): the mandatory fields,
 * their formats and enumerations, and no fields beyond the ones Vigil's writer emits (catching typos the spec would
 * silently ignore). The official schema file is not shipped by any package this workplace can install.
 */
import { Ajv } from 'ajv';
import ajvFormats from 'ajv-formats';

const SPDX_ID = '^SPDXRef-[A-Za-z0-9.-]+$';
const spdxPackageSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['SPDXID', 'name', 'downloadLocation'],
  properties: {
    SPDXID: { type: 'string', pattern: SPDX_ID },
    name: { type: 'string', minLength: 1 },
    versionInfo: { type: 'string' },
    supplier: { type: 'string', pattern: '^(NOASSERTION|(Person|Organization): \\S.*)$' },
    downloadLocation: { type: 'string', minLength: 1 },
    filesAnalyzed: { type: 'boolean' },
    sourceInfo: { type: 'string' },
    licenseConcluded: { type: 'string', minLength: 1 },
    licenseDeclared: { type: 'string', minLength: 1 },
    copyrightText: { type: 'string', minLength: 1 },
    description: { type: 'string' },
    primaryPackagePurpose: {
      enum: ['APPLICATION', 'FRAMEWORK', 'LIBRARY', 'CONTAINER', 'OPERATING-SYSTEM', 'DEVICE', 'FIRMWARE', 'SOURCE', 'ARCHIVE', 'FILE', 'INSTALL', 'OTHER'],
    },
    externalRefs: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['referenceCategory', 'referenceType', 'referenceLocator'],
        properties: {
          referenceCategory: { enum: ['SECURITY', 'PACKAGE-MANAGER', 'PERSISTENT-ID', 'OTHER'] },
          referenceType: { type: 'string', minLength: 1 },
          referenceLocator: { type: 'string', pattern: '^\\S+$' },
        },
      },
    },
  },
};
const spdxDocumentSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['spdxVersion', 'dataLicense', 'SPDXID', 'name', 'documentNamespace', 'creationInfo'],
  properties: {
    spdxVersion: { const: 'SPDX-2.3' },
    dataLicense: { const: 'CC0-1.0' },
    SPDXID: { const: 'SPDXRef-DOCUMENT' },
    name: { type: 'string', minLength: 1 },
    documentNamespace: { type: 'string', format: 'uri', pattern: '^[^#]+$' },
    creationInfo: {
      type: 'object',
      additionalProperties: false,
      required: ['created', 'creators'],
      properties: {
        created: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$' },
        creators: { type: 'array', minItems: 1, items: { type: 'string', pattern: '^(Person|Organization|Tool): \\S.*$' } },
        licenseListVersion: { type: 'string' },
      },
    },
    packages: { type: 'array', items: spdxPackageSchema },
    relationships: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['spdxElementId', 'relationshipType', 'relatedSpdxElement'],
        properties: {
          spdxElementId: { type: 'string', pattern: SPDX_ID },
          relatedSpdxElement: { type: 'string', pattern: `${SPDX_ID}|^NONE$|^NOASSERTION$` },
          comment: { type: 'string' },
          relationshipType: {
            enum: [
              'DESCRIBES', 'DESCRIBED_BY', 'CONTAINS', 'CONTAINED_BY', 'DEPENDS_ON', 'DEPENDENCY_OF', 'DEPENDENCY_MANIFEST_OF',
              'BUILD_DEPENDENCY_OF', 'DEV_DEPENDENCY_OF', 'OPTIONAL_DEPENDENCY_OF', 'PROVIDED_DEPENDENCY_OF', 'TEST_DEPENDENCY_OF',
              'RUNTIME_DEPENDENCY_OF', 'EXAMPLE_OF', 'GENERATES', 'GENERATED_FROM', 'ANCESTOR_OF', 'DESCENDANT_OF', 'VARIANT_OF',
              'DISTRIBUTION_ARTIFACT', 'PATCH_FOR', 'PATCH_APPLIED', 'COPY_OF', 'FILE_ADDED', 'FILE_DELETED', 'FILE_MODIFIED',
              'EXPANDED_FROM_ARCHIVE', 'DYNAMIC_LINK', 'STATIC_LINK', 'DATA_FILE_OF', 'TEST_CASE_OF', 'BUILD_TOOL_OF',
              'DEV_TOOL_OF', 'TEST_OF', 'TEST_TOOL_OF', 'DOCUMENTATION_OF', 'OPTIONAL_COMPONENT_OF', 'METAFILE_OF', 'PACKAGE_OF',
              'AMENDS', 'PREREQUISITE_FOR', 'HAS_PREREQUISITE', 'REQUIREMENT_DESCRIPTION_FOR', 'SPECIFICATION_FOR', 'OTHER',
            ],
          },
        },
      },
    },
    hasExtractedLicensingInfos: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['licenseId', 'extractedText'],
        properties: {
          licenseId: { type: 'string', pattern: '^LicenseRef-[A-Za-z0-9.-]+$' },
          extractedText: { type: 'string', minLength: 1 },
          name: { type: 'string' },
        },
      },
    },
  },
};
const ajv = new Ajv({ allErrors: true, strict: true });
ajvFormats.default(ajv);
export const validateSpdxStructure = ajv.compile(spdxDocumentSchema);
