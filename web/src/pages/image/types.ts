/** The generated API types the image page works with, by short names. */
import type { components } from '../../../../generated/openapi-types';

type Schemas = components['schemas'];
export type Image = Schemas['AnchoreImage'];
export type ImageTag = Schemas['ImageDetail'];
export type Vulnerability = Schemas['ImagePackageVulnerability'];
export type Severity = Vulnerability['severity'];
export type Package = Schemas['PackageContent'];
export type FileEntry = Schemas['FilesContent'];
export type Evaluation = Schemas['PolicyEvaluationResult'];
export type Finding = Schemas['PolicyEvaluationFinding'];
export type PolicyDocument = Schemas['Policy'];
export type Annotation = Schemas['PackageVulnerabilityAnnotation'];
export type AnnotationStatus = Schemas['VulnAnnotationStatus'];
export type Justification = NonNullable<Schemas['VulnerabilityAnnotation']['justification']>;

export const SEVERITIES: Severity[] = ['Critical', 'High', 'Medium', 'Low', 'Negligible', 'Unknown'];
