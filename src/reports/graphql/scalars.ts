/**
 * Custom scalars. UtcTimestamp is the specification's zone-less UTC form `YYYY-MM-DDThh:mm:ss`; internally
 * timestamps are ISO strings with milliseconds and `Z`, so parsing adds them and serialising drops them.
 */
import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';

const UTC_FORM = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/;

/** The ISO form of a zone-less UTC timestamp, or null when it is not one (or not a real date). */
export function isoFromUtcTimestamp(value: string): string | null {
  if (!UTC_FORM.test(value)) return null;
  const date = new Date(`${value}.000Z`);
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 19) !== value) return null;
  return date.toISOString();
}

export const UTC_TIMESTAMP_HINT = 'write a UTC time as YYYY-MM-DDThh:mm:ss, without a zone (for example 2024-05-01T00:00:00)';

export const UtcTimestamp = new GraphQLScalarType({
  name: 'UtcTimestamp',
  serialize(value) {
    if (typeof value !== 'string') throw new GraphQLError(`UtcTimestamp cannot represent ${JSON.stringify(value)}`);
    return value.slice(0, 19);
  },
  parseValue(value) {
    const iso = typeof value === 'string' ? isoFromUtcTimestamp(value) : null;
    if (!iso) throw new GraphQLError(`${JSON.stringify(value)} is not a UTC timestamp: ${UTC_TIMESTAMP_HINT}`);
    return iso;
  },
  // A literal that is not a UTC timestamp is reported by the timestampArguments validation rule, which can name
  // the argument and the location; answering something here keeps graphql-js from adding a second, anonymous error.
  parseLiteral(ast: ValueNode) {
    if (ast.kind !== Kind.STRING) return null;
    return isoFromUtcTimestamp(ast.value) ?? ast.value;
  },
});

function literalValue(ast: ValueNode, variables: Record<string, unknown> | null | undefined): unknown {
  switch (ast.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
    case Kind.ENUM:
      return ast.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(ast.value);
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return ast.values.map((v) => literalValue(v, variables));
    case Kind.OBJECT:
      return Object.fromEntries(ast.fields.map((f) => [f.name.value, literalValue(f.value, variables)]));
    case Kind.VARIABLE:
      return variables?.[ast.name.value];
  }
}

export const JSONScalar = new GraphQLScalarType({
  name: 'JSON',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (ast, variables) => literalValue(ast, variables),
});
