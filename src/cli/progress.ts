/**
 * Progress of long waits (analysis, feed sync), on stderr so stdout stays the command's answer. On a terminal a
 * spinner redraws one line; elsewhere (CI logs, pipes) each new state is one timestamped line, so a log shows
 * what happened when without carriage-return noise.
 */
import type { OutputStream } from './output.js';

export interface Progress {
  /** Show the current state; repeated identical states print nothing new. */
  update(text: string): void;
  /** Stop, leaving `final` as the last line. */
  done(final: string): void;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const FRAME_MS = 100;
const CLEAR_LINE = '\r\x1b[2K';

function spinner(stream: OutputStream): Progress {
  let frame = 0;
  let text = '';
  const draw = () => stream.write(`${CLEAR_LINE}${FRAMES[frame++ % FRAMES.length]} ${text}`);
  // unref: a spinner must never keep the process alive after the command is done.
  const timer = setInterval(draw, FRAME_MS).unref();
  return {
    update(next) {
      text = next;
      draw();
    },
    done(final) {
      clearInterval(timer);
      stream.write(`${CLEAR_LINE}${final}\n`);
    },
  };
}

function lines(stream: OutputStream, now: () => Date): Progress {
  let last: string | undefined;
  const say = (text: string) => stream.write(`${now().toISOString()} ${text}\n`);
  return {
    update(text) {
      if (text === last) return;
      last = text;
      say(text);
    },
    done(final) {
      // The last state is often the final one: a log line says it once.
      if (final !== last) say(final);
    },
  };
}

export function startProgress(stream: OutputStream, now: () => Date = () => new Date()): Progress {
  return stream.isTTY ? spinner(stream) : lines(stream, now);
}
