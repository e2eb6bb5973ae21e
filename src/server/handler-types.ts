/**
 * Handler signatures derived from the generated operation table: a missing handler, a wrong input type or a
 * response body that does not match the spec's schema is a compile error. A body may also be streamed
 * (json-stream.ts), typed by the schema it produces.
 */
import type { OperationId, OperationIO } from '../../generated/operations.js';
import type { RequestContext } from './context.js';
import type { StreamedJsonArray } from './json-stream.js';

export interface HandlerInput<K extends OperationId> {
  params: OperationIO[K]['path'];
  query: OperationIO[K]['query'];
  body: OperationIO[K]['body'];
}

type Responses<K extends OperationId> = OperationIO[K]['responses'];

export type Reply<K extends OperationId> = {
  [S in keyof Responses<K>]: undefined extends Responses<K>[S]
    ? { status: S; body?: undefined; headers?: Record<string, string> }
    : { status: S; body: Responses<K>[S] | StreamedJsonArray<Responses<K>[S]>; headers?: Record<string, string> };
}[keyof Responses<K>];

export type Handler<K extends OperationId> = (ctx: RequestContext, input: HandlerInput<K>) => Promise<Reply<K>>;

export type Handlers = { [K in OperationId]: Handler<K> };

/**
 * A check of an operation's body beyond the spec's schema (a policy's gates, triggers and references), run also on
 * a body the schema refused, so that one 400 lists every problem. `within` is where the checked document is in the
 * body, spelt as validation locations are ('body', 'body.policy'); each problem's `path` is relative to it.
 */
export type BodyCheck = (body: unknown) => { within: string; problems: { path: string; message: string }[] };

export type BodyChecks = Partial<Record<OperationId, BodyCheck>>;

/** A handler module implements the operations of one spec tag. */
export type HandlerGroup<K extends OperationId> = { [P in K]: Handler<P> };
