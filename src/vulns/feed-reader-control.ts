/**
 * Values of a feed read's control flag: an Int32Array over a SharedArrayBuffer that the main thread sets and the
 * reader thread reads between batches (feed-reader.ts, feed-reader-worker.ts). A module of its own so that the
 * reader thread does not load the main thread's side.
 */
export const READ_RUN = 0;
/** End the read and answer `stopped`; the thread stays usable. */
export const READ_STOP = 1;
/** End the read and the thread (as a crash would, but at a safe point). */
export const READ_EXIT = 2;
