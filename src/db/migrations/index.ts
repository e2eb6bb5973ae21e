import type { Knex } from 'knex';
import * as m001 from './001_platform.js';
import * as m002 from './002_jobs.js';
import * as m003 from './003_images.js';
import * as m004 from './004_subscriptions.js';
import * as m005 from './005_imports.js';
import * as m006 from './006_vulnerabilities.js';
import * as m007 from './007_findings.js';
import * as m008 from './008_policies.js';
import * as m009 from './009_policy_evaluations.js';
import * as m010 from './010_image_ancestry.js';
import * as m011 from './011_reporting.js';
import * as m012 from './012_runtime_inventory.js';
import * as m013 from './013_notifications.js';
import * as m014 from './014_token_generation.js';
import * as m015 from './015_image_file_chunks.js';
import * as m016 from './016_rematch_keys.js';
import * as m017 from './017_system_services.js';
import * as m018 from './018_deployment_history.js';
import * as m019 from './019_package_owner.js';
import * as m020 from './020_finding_matched_by.js';
import * as m021 from './021_distro_release_keys.js';
import * as m022 from './022_go_precision.js';
import * as m023 from './023_nvd_cvss.js';
import * as m024 from './024_vuln_data_version.js';
import * as m025 from './025_feed_generations.js';
import * as m026 from './026_analysis_progress.js';
import * as m027 from './027_report_finding_match.js';
import * as m028 from './028_user_groups.js';
import * as m029 from './029_saml.js';
import * as m030 from './030_sso_group_mappings.js';
import * as m031 from './031_oidc.js';
import * as m032 from './032_stored_uploads.js';
import * as m033 from './033_node_roles.js';
import * as m034 from './034_job_runtime.js';
import * as m035 from './035_sso_browser_logins.js';
import * as m036 from './036_sources.js';
import * as m037 from './037_corrections.js';
import * as m038 from './038_compliance_alerts.js';
import * as m039 from './039_action_plans_and_settings.js';
import * as m040 from './040_artifact_relationships.js';
import * as m041 from './041_applications.js';
import * as m042 from './042_analysis_archive.js';
import * as m043 from './043_artifact_lifecycle_policies.js';
import * as m044 from './044_notification_issue_trackers.js';
import * as m045 from './045_rematch_indexes.js';
import * as m046 from './046_drop_findings_vuln_id_index.js';

/** Every migration in the order it runs. Add new ones at the end; never edit one that has shipped. */
export const migrations: Record<string, { up(k: Knex): Promise<void>; down(k: Knex): Promise<void> }> = {
  '001_platform': m001,
  '002_jobs': m002,
  '003_images': m003,
  '004_subscriptions': m004,
  '005_imports': m005,
  '006_vulnerabilities': m006,
  '007_findings': m007,
  '008_policies': m008,
  '009_policy_evaluations': m009,
  '010_image_ancestry': m010,
  '011_reporting': m011,
  '012_runtime_inventory': m012,
  '013_notifications': m013,
  '014_token_generation': m014,
  '015_image_file_chunks': m015,
  '016_rematch_keys': m016,
  '017_system_services': m017,
  '018_deployment_history': m018,
  '019_package_owner': m019,
  '020_finding_matched_by': m020,
  '021_distro_release_keys': m021,
  '022_go_precision': m022,
  '023_nvd_cvss': m023,
  '024_vuln_data_version': m024,
  '025_feed_generations': m025,
  '026_analysis_progress': m026,
  '027_report_finding_match': m027,
  '028_user_groups': m028,
  '029_saml': m029,
  '030_sso_group_mappings': m030,
  '031_oidc': m031,
  '032_stored_uploads': m032,
  '033_node_roles': m033,
  '034_job_runtime': m034,
  '035_sso_browser_logins': m035,
  '036_sources': m036,
  '037_corrections': m037,
  '038_compliance_alerts': m038,
  '039_action_plans_and_settings': m039,
  '040_artifact_relationships': m040,
  '041_applications': m041,
  '042_analysis_archive': m042,
  '043_artifact_lifecycle_policies': m043,
  '044_notification_issue_trackers': m044,
  '045_rematch_indexes': m045,
  '046_drop_findings_vuln_id_index': m046,
};
