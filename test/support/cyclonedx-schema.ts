/**
 * The official CycloneDX schemas shipped in @cyclonedx/cyclonedx-library's res/schema: JSON through Ajv (with the
 * SPDX and JSF schemas they reference), XML through `xmllint --schema` (Debian package libxml2-utils), as the
 * library's own XML validator needs the native module libxmljs2.
 */
import { spawnSync } from 'node:child_process';
import { requireTool } from './tools.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import ajvFormats from 'ajv-formats';

export type CycloneDxVersion = '1.5' | '1.6';

const SCHEMA_DIR = join(import.meta.dirname, '..', '..', 'node_modules', '@cyclonedx', 'cyclonedx-library', 'res', 'schema');
const readSchema = (file: string): Record<string, unknown> => JSON.parse(readFileSync(join(SCHEMA_DIR, file), 'utf8')) as Record<string, unknown>;

function jsonValidator(version: CycloneDxVersion): ValidateFunction {
  // strict off: the official schemas use annotation keywords (`meta:enum`, ...) Ajv's strict mode does not know.
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajvFormats.default(ajv);
  // Formats ajv-formats lacks. An IRI reference has no blanks or characters RFC 3987 excludes; an e-mail one @.
  ajv.addFormat('iri-reference', /^[^\s<>"{}|\\^`]*$/u);
  ajv.addFormat('idn-email', /^[^\s@]+@[^\s@]+$/u);
  // The bom schemas' $id is http://cyclonedx.org/schema/bom-1.x.schema.json, so their relative refs resolve there.
  ajv.addSchema(readSchema('spdx.SNAPSHOT.schema.json'), 'http://cyclonedx.org/schema/spdx.SNAPSHOT.schema.json');
  ajv.addSchema(readSchema('jsf-0.82.SNAPSHOT.schema.json'), 'http://cyclonedx.org/schema/jsf-0.82.SNAPSHOT.schema.json');
  return ajv.compile(readSchema(`bom-${version}.SNAPSHOT.schema.json`));
}

const validators = new Map<CycloneDxVersion, ValidateFunction>();

/** The JSON schema's complaints about `doc`; empty when valid. */
export function cycloneDxJsonErrors(doc: unknown, version: CycloneDxVersion): unknown[] {
  let validate = validators.get(version);
  if (!validate) validators.set(version, (validate = jsonValidator(version)));
  return validate(doc) ? [] : (validate.errors ?? ['invalid']);
}


/** xmllint's complaints about `xml` against the official XSD; empty when valid. Never touches the network. */
export function cycloneDxXmlErrors(xml: string, version: CycloneDxVersion): string[] {
  const res = spawnSync(requireTool('xmllint'), ['--noout', '--nonet', '--schema', join(SCHEMA_DIR, `bom-${version}.SNAPSHOT.xsd`), '-'], { input: xml, encoding: 'utf8' });
  if (res.status === 0) return [];
  return res.stderr.split('\n').filter((line) => line.trim() !== '' && !line.endsWith(' validates'));
}
