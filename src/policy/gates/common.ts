/** Enumerations shared by several gate definitions. */
import { enumString } from '../params.js';

/** The ordering comparisons the vulnerability, package-metadata and distro checks accept. */
export const ORDER_OPERATORS = ['=', '!=', '<', '>', '<=', '>='] as const;

export const orderComparison = enumString(ORDER_OPERATORS);

/** Whether a list of values is treated as the allowed set or the forbidden set (engine wording kept). */
export const listTypeString = enumString(['whitelist', 'blacklist']);
