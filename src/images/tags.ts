/** Recording that a tag points at a digest, with the tag-moved event when it pointed elsewhere before. */
import { recordEvent } from '../events/events.js';
import type { Db } from '../db/index.js';
import { fullTag, type ImageReference } from './sources/references.js';
import { mapTag } from './store.js';

export async function recordTag(db: Db, accountName: string, digest: string, ref: ImageReference, detectedAt?: string): Promise<void> {
  const full = fullTag(ref);
  const { movedFrom } = await mapTag(db, accountName, digest, { registry: ref.registry, repo: ref.repository, tag: ref.tag ?? 'latest', fullTag: full }, detectedAt);
  if (movedFrom)
    await recordEvent(db, {
      accountName,
      type: 'user.checks.tag.update',
      resourceType: 'image_tag',
      resourceId: full,
      message: `${full} moved from ${movedFrom} to ${digest}`,
      details: { previous_digest: movedFrom, current_digest: digest },
    });
}
