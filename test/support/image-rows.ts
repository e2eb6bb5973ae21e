/**
 * An account and an image row written straight into the database, for tests of code below the API that need an
 * image to exist (store functions, migrations) without analyzing one.
 */
import type { Db } from '../../src/db/index.js';
import type { AnalysisStatus } from '../../src/images/store.js';

const CREATED = '2026-11-26T00:00:00Z';

export async function insertImageRow(db: Db, accountName: string, digest: string, analysisStatus: AnalysisStatus): Promise<void> {
  await db('accounts').insert({ name: accountName, type: 'user', state: 'enabled', created_at: CREATED, last_updated: CREATED }).onConflict('name').ignore();
  await db('images').insert({
    account_name: accountName,
    image_digest: digest,
    image_type: 'docker',
    image_status: 'active',
    analysis_status: analysisStatus,
    annotations: '{}',
    source: '{}',
    created_at: CREATED,
    last_updated: CREATED,
  });
}
