/** Job kinds for tests of the runtime itself: any object payload, defined once per kind and test file. */
import { defineJob, type JobDefinition, type JobDefinitionSpec } from '../../src/jobs/definition.js';

const defined = new Map<string, JobDefinition<any>>();

export function testJob<P = any>(kind: string, options: Partial<Omit<JobDefinitionSpec<P>, 'kind'>> = {}): JobDefinition<P> {
  let definition = defined.get(kind);
  if (!definition) {
    definition = defineJob<P>({ kind, role: 'analyzer', maxAttempts: 3, schema: { type: 'object' }, ...options });
    defined.set(kind, definition);
  }
  return definition;
}
