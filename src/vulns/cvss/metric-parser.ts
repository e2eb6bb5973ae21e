import { CvssError } from './cvss-error.js';

/** Allowed values of every metric a CVSS version defines, keyed by metric abbreviation. */
export type MetricDefinitions = Readonly<Record<string, readonly string[]>>;

/**
 * Splits the metric part of a vector ("AV:N/AC:L/...") into metric -> value, checking every metric
 * against the version's definitions: well-formed "KEY:VALUE" segments, known metrics, allowed values,
 * no duplicates, all mandatory (base) metrics present. Order is not enforced: the specs ask producers for
 * a fixed order, but real feeds do not always keep it and the order carries no meaning.
 */
export function parseMetrics(
  vector: string,
  body: string,
  definitions: MetricDefinitions,
  mandatory: readonly string[],
): Map<string, string> {
  const metrics = new Map<string, string>();
  for (const segment of body.split('/')) {
    const colon = segment.indexOf(':');
    if (colon <= 0 || colon === segment.length - 1 || segment.indexOf(':', colon + 1) !== -1) {
      throw new CvssError('malformed_metric', `"${segment}" is not a METRIC:VALUE pair`, vector);
    }
    const metric = segment.slice(0, colon);
    const value = segment.slice(colon + 1);
    // Object.hasOwn so that "constructor" or "__proto__" cannot pass as metrics.
    if (!Object.hasOwn(definitions, metric)) {
      throw new CvssError('unknown_metric', `unknown metric "${metric}"`, vector, { metric });
    }
    if (metrics.has(metric)) {
      throw new CvssError('duplicate_metric', `metric "${metric}" appears more than once`, vector, { metric });
    }
    const allowed = definitions[metric]!;
    if (!allowed.includes(value)) {
      throw new CvssError(
        'invalid_value',
        `"${value}" is not a value of ${metric} (expected one of ${allowed.join(', ')})`,
        vector,
        { metric, value },
      );
    }
    metrics.set(metric, value);
  }
  const missing = mandatory.filter((metric) => !metrics.has(metric));
  if (missing.length > 0) {
    throw new CvssError('missing_metric', `missing mandatory metric(s) ${missing.join(', ')}`, vector, {
      metric: missing[0],
    });
  }
  return metrics;
}
