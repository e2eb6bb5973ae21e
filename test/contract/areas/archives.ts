/**
 * Archives: an image uploaded as a `docker save` archive is analyzed, its analysis archived, read back (summary,
 * list, record), a transition rule created, read and deleted, and the archived analysis deleted.
 */
import * as sdk from '../../../generated/contract-client/sdk.gen.js';
import { analyzeArchiveImage } from '../../support/analysis.js';
import { defineArea, ok } from '../harness.js';

interface State {
  digest: string;
  ruleId: string;
}

const LAYER = [
  { path: 'etc/os-release', content: 'ID=alpine\nVERSION_ID=3.19.1\nPRETTY_NAME="Alpine Linux v3.19"\n' },
  { path: 'lib/apk/db/installed', content: 'P:musl\nV:1.2.4-r4\nA:x86_64\nL:MIT\no:musl\n\n' },
];
const archived = (s: State) => ({ path: { image_digest: s.digest } });
const rule = (s: State) => ({ path: { rule_id: s.ruleId } });

export const archivesArea = defineArea<State>({
  name: 'archives',
  async setup(_url, server) {
    return { digest: await analyzeArchiveImage(server, [LAYER], 'example.com/contract/archived:1'), ruleId: '' };
  },
  calls: {
    archive_image_analysis: (s) => ok(sdk.archiveImageAnalysis({ body: [s.digest] })),
    list_archives: () => ok(sdk.listArchives()),
    list_analysis_archive: () => ok(sdk.listAnalysisArchive()),
    get_archived_analysis: (s) => ok(sdk.getArchivedAnalysis(archived(s))),
    create_analysis_archive_rule: async (s) => {
      const body = { transition: 'archive' as const, analysis_age_days: 3650, selector: { repository: 'contract/*' } };
      s.ruleId = (await ok(sdk.createAnalysisArchiveRule({ body }))).rule_id!;
    },
    list_analysis_archive_rules: () => ok(sdk.listAnalysisArchiveRules()),
    get_analysis_archive_rule: (s) => ok(sdk.getAnalysisArchiveRule(rule(s))),
    delete_analysis_archive_rule: (s) => ok(sdk.deleteAnalysisArchiveRule(rule(s))),
    delete_archived_analysis: (s) => ok(sdk.deleteArchivedAnalysis(archived(s))),
  },
});
