/** Image history and Dockerfile: given by the user (Actual) or reconstructed from the config history (Guessed). */
import type { ImageConfig } from './sources/image-config.js';

export interface HistoryEntry {
  created?: string;
  created_by: string;
  empty_layer: boolean;
  comment?: string;
}

export function historyOf(config: ImageConfig): HistoryEntry[] {
  const raw = (config as { history?: { created?: string; created_by?: string; empty_layer?: boolean; comment?: string }[] }).history ?? [];
  return raw.map((h) => ({
    ...(h.created ? { created: h.created } : {}),
    created_by: h.created_by ?? '',
    empty_layer: h.empty_layer === true,
    ...(h.comment ? { comment: h.comment } : {}),
  }));
}

/**
 * Rebuilds a Dockerfile from history: BuildKit writes the instruction itself (`RUN /bin/sh -c ...  # buildkit`),
 * the classic builder writes `/bin/sh -c #(nop)  CMD [...]` for metadata steps and `/bin/sh -c <cmd>` for RUN.
 */
export function guessDockerfile(history: HistoryEntry[]): string {
  const lines: string[] = [];
  for (const h of history) {
    let step = h.created_by.trim().replace(/\s+# buildkit$/, '');
    if (!step) continue;
    const nop = /^\/bin\/sh -c #\(nop\)\s+(.*)$/s.exec(step);
    if (nop) step = nop[1].trim();
    else if (step.startsWith('/bin/sh -c ')) step = `RUN ${step.slice('/bin/sh -c '.length)}`;
    else if (!/^[A-Z]+\s/.test(step)) step = `RUN ${step}`;
    lines.push(step);
  }
  return lines.join('\n') + (lines.length ? '\n' : '');
}
