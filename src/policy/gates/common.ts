/** Enumerations shared by several gate definitions. */
import { enumString } from '../params.js';

/** The ordering comparisons the vulnerability, package-metadata and distro checks accept. */
export const ORDER_OPERATORS = ['=', '!=', '<', '>', '<=', '>='] as const;

export const orderComparison = enumString(ORDER_OPERATORS);

/** Whether a comparison's sign (negative, zero, positive; NaN when unordered) satisfies an order operator. */
export function satisfiesOrder(cmp: number, operator: string): boolean {
  switch (operator) {
    case '=':
      return cmp === 0;
    case '!=':
      return cmp !== 0;
    case '<':
      return cmp < 0;
    case '>':
      return cmp > 0;
    case '<=':
      return cmp <= 0;
    case '>=':
      return cmp >= 0;
    default:
      throw new Error(`unknown comparison operator '${operator}'`);
  }
}

/** Whether a list of values is treated as the allowed set or the forbidden set (engine wording kept). */
export const listTypeString = enumString(['whitelist', 'blacklist']);
