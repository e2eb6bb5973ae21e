/**
 * The contract client (generated/contract-client/client) names the fetch body type `BodyInit`, which lib.dom
 * declares globally and @types/node does not. This is the same type, taken from the global RequestInit that
 * @types/node does declare, so `tsc -p tsconfig.json` checks the generated client unchanged.
 */
declare global {
  type BodyInit = NonNullable<RequestInit['body']>;
}

export {};
