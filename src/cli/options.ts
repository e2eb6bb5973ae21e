/** Argument parsers for commander options, failing as usage errors (exit code 2) with commander's own message. */
import { InvalidArgumentError } from 'commander';

export function nonNegativeInteger(value: string): number {
  if (!/^\d{1,9}$/.test(value)) throw new InvalidArgumentError('expected a whole number of seconds (0 or more)');
  return Number(value);
}

export function oneOf<T extends string>(choices: readonly T[]): (value: string) => T {
  return (value) => {
    if ((choices as readonly string[]).includes(value)) return value as T;
    throw new InvalidArgumentError(`expected one of ${choices.join(', ')}`);
  };
}
