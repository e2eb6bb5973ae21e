import type { EvaluationContext, Fired, ImageFacts, TriggerParams } from '../evaluation-context.js';
import type { GateDefinition } from '../gate-types.js';
import { anyString, enumString, listOf } from '../params.js';
import { defaultTriggerId } from '../trigger-ids.js';
import { satisfiesOrder } from './common.js';
import { compareDistroVersions } from './distro.js';
import { pythonMatcher } from '../../util/python-regex.js';

const GATE = 'metadata';

/** How an attribute's values compare: as numbers, as distribution versions (see distro/deny) or as strings. */
type AttributeKind = 'number' | 'version' | 'string';

interface AttributeValues {
  kind: AttributeKind;
  /** The image's values: one for most attributes, none when unknown, any number for like_distro. */
  values: string[];
}

function known(value: string | number | null | undefined): string[] {
  return value === null || value === undefined || value === '' ? [] : [String(value)];
}

/** The image's value(s) of a metadata attribute. Every analysed image is a Linux image. */
function attributeValues(image: ImageFacts, attribute: string): AttributeValues {
  switch (attribute) {
    case 'size':
      return { kind: 'number', values: known(image.size) };
    case 'layer_count':
      return { kind: 'number', values: known(image.layerCount) };
    case 'architecture':
      return { kind: 'string', values: known(image.arch) };
    case 'os_type':
      return { kind: 'string', values: ['linux'] };
    case 'distro':
      return { kind: 'string', values: known(image.distro?.name) };
    case 'distro_version':
      return { kind: 'version', values: known(image.distro?.version) };
    case 'like_distro':
      return { kind: 'string', values: (image.distro?.like ?? []).filter(Boolean) };
    default:
      throw new Error(`attribute ${JSON.stringify(attribute)} is not a metadata attribute`);
  }
}

function asNumber(value: string, what: string): number {
  const n = Number(value.trim());
  if (value.trim() === '' || !Number.isFinite(n)) throw new Error(`${what} ${JSON.stringify(value)} is not a number`);
  return n;
}

/** Compares an image value with a policy value of the attribute's kind; undefined when they cannot be compared. */
function compareValues(kind: AttributeKind, imageValue: string, policyValue: string): number | undefined {
  if (kind === 'number') return Math.sign(asNumber(imageValue, 'image value') - asNumber(policyValue, 'value'));
  if (kind === 'version') return compareDistroVersions(imageValue, policyValue);
  return imageValue === policyValue ? 0 : imageValue < policyValue ? -1 : 1;
}

const ORDER_CHECKS = new Set(['=', '!=', '>', '<', '>=', '<=']);

/**
 * Whether the image's values pass the check. A positive check (=, >, like, in, ...) passes when any value passes;
 * its negation (!=, not_like, not_in) when none passes the positive form, so an unknown attribute passes only
 * the negations and not_exists.
 */
function checkPasses(attr: AttributeValues, check: string, value: string): boolean {
  const { kind, values } = attr;
  switch (check) {
    case 'exists':
      return values.length > 0;
    case 'not_exists':
      return values.length === 0;
    case '!=':
      return !checkPasses(attr, '=', value);
    case 'like': {
      const matches = pythonMatcher(value, 'value');
      return values.some((v) => matches(v));
    }
    case 'not_like':
      return !checkPasses(attr, 'like', value);
    case 'in': {
      const wanted = listOf(value);
      return values.some((v) => wanted.some((w) => compareValues(kind, v, w) === 0));
    }
    case 'not_in':
      return !checkPasses(attr, 'in', value);
    default:
      if (!ORDER_CHECKS.has(check)) throw new Error(`check ${JSON.stringify(check)} is not a metadata check`);
      return values.some((v) => {
        const cmp = compareValues(kind, v, value);
        return cmp !== undefined && satisfiesOrder(cmp, check);
      });
  }
}

/** attribute: fires once when the image's attribute passes the check against the value. */
async function evaluateAttribute(ctx: EvaluationContext, params: TriggerParams): Promise<Fired[]> {
  const { attribute, check, value } = params;
  if (!attribute || !check) return [];
  const needsValue = check !== 'exists' && check !== 'not_exists';
  if (needsValue && value === undefined) return [];
  const attr = attributeValues(ctx.image, attribute);
  if (!checkPasses(attr, check, value ?? '')) return [];
  const shown = attr.values.length > 0 ? attr.values.join(',') : 'unknown';
  const message = `Image attribute ${attribute} (${shown}) matches check '${check}'${needsValue ? ` '${value}'` : ''}`;
  return [{ triggerId: defaultTriggerId(GATE, 'attribute', message), message }];
}

export const metadataGate: GateDefinition = {
  name: GATE,
  description: 'Checks image metadata such as its size, operating system, distribution, architecture and layer count.',
  state: 'active',
  triggers: [
    {
      name: 'attribute',
      description: 'Fires when the chosen metadata attribute of the image satisfies the given condition.',
      params: [
        {
          name: 'attribute',
          description: 'Which metadata attribute to test.',
          required: true,
          example: 'size',
          validator: enumString(['size', 'architecture', 'os_type', 'distro', 'distro_version', 'like_distro', 'layer_count']),
        },
        {
          name: 'check',
          description: 'The comparison applied between the attribute and the value.',
          required: true,
          example: '>',
          validator: enumString(['=', '!=', '>', '<', '>=', '<=', 'exists', 'not_exists', 'like', 'not_like', 'in', 'not_in']),
        },
        {
          name: 'value',
          description:
            'What the attribute is compared with; its expected form depends on the attribute (for example bytes for size). Not needed for exists/not_exists.',
          required: false,
          example: '1073741824',
          validator: anyString,
        },
      ],
      evaluate: evaluateAttribute,
    },
  ],
};
