/**
 * JSON answers written while they are produced: an object whose fields are known up front except one array, which
 * is filled chunk by chunk, and optionally fields known only once the array is complete (a count), written after
 * it. Memory stays at one chunk (the socket's backpressure is honoured) and no single JSON.stringify of a huge body
 * holds the event loop. The bytes are those of the whole body stringified at once, with its keys in that order.
 */
import type { Response } from 'express';

type ItemOf<A> = A extends readonly (infer I)[] ? I : never;

/** A body of type T, written by the pipeline as `head` plus the array `field` streamed from `chunks`. */
export class StreamedJsonArray<T> {
  /** Only typing: ties the value to the body type it stands for, so handler replies stay checked. */
  declare private readonly bodyType: T;

  constructor(
    readonly head: Record<string, unknown>,
    readonly field: string,
    readonly chunks: AsyncIterable<readonly unknown[]>,
    /** Fields written after the array, asked for once the last chunk has been read. */
    readonly tail?: () => Record<string, unknown>,
  ) {}
}

export function streamedJsonArray<T extends object, F extends keyof T & string, K extends Exclude<keyof T, F> = never>(
  head: Omit<T, F | K>,
  field: F,
  chunks: AsyncIterable<readonly ItemOf<T[F]>[]>,
  tail?: () => Pick<T, K>,
): StreamedJsonArray<T> {
  return new StreamedJsonArray<T>(head as Record<string, unknown>, field, chunks, tail as (() => Record<string, unknown>) | undefined);
}

/** Writes text, waiting while the socket's buffer is full; false once the client is gone. */
async function send(res: Response, text: string): Promise<boolean> {
  if (res.destroyed) return false;
  if (!res.write(text)) {
    await new Promise<void>((resolve) => {
      const done = () => {
        res.off('drain', done).off('close', done);
        resolve();
      };
      res.on('drain', done).on('close', done);
    });
  }
  return !res.destroyed;
}

/**
 * Writes the answer with the status and headers already set. The first chunk is read before anything is sent, so
 * a failure there still gets an error answer; a later failure throws with the headers sent (the caller then cuts
 * the connection, and the client sees an incomplete body, never a complete-looking wrong one).
 */
export async function writeStreamedJson(res: Response, body: StreamedJsonArray<unknown>): Promise<void> {
  const chunks = body.chunks[Symbol.asyncIterator]();
  try {
    let next = await chunks.next();
    const head = JSON.stringify(body.head);
    res.type('application/json');
    let text = `${head.slice(0, -1)}${head === '{}' ? '' : ','}${JSON.stringify(body.field)}:[`;
    let first = true;
    while (!next.done) {
      if (next.value.length > 0) {
        const items = JSON.stringify(next.value).slice(1, -1);
        text += first ? items : `,${items}`;
        first = false;
      }
      if (!(await send(res, text))) return;
      text = '';
      next = await chunks.next();
    }
    const tail = body.tail ? JSON.stringify(body.tail()) : '{}';
    if (await send(res, `${text}]${tail === '{}' ? '' : `,${tail.slice(1, -1)}`}}`)) res.end();
  } finally {
    // Stops the producer (its queries) when the client left or a write failed.
    await chunks.return?.();
  }
}
