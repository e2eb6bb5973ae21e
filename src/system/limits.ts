/**
 * The limits this deployment enforces (upstream's get_resource_limits), read from the running configuration and
 * the fixed limits of the code, so the list says what is actually enforced. Each is a ceiling on one request,
 * upload, document or node (`limit_value`); none is a quota that fills up, so no current value or warning level
 * is reported.
 */
import type { Config } from '../config.js';
import { QUERY_LIMITS } from '../reports/graphql/limits.js';

export interface ResourceLimit {
  name: string;
  limit_value: number;
}

/** The fixed limits of the HTTP layer, passed in by it (this module does not depend on the server). */
export interface RequestLimits {
  /** Arrays and objects a JSON body may nest. */
  jsonBodyDepth: number;
}

export function resourceLimits(config: Config, request: RequestLimits): ResourceLimit[] {
  const limits: [string, number][] = [
    ['request_body_bytes', config.bodyLimitBytes],
    ['request_body_json_depth', request.jsonBodyDepth],
    ['inventory_report_bytes', config.inventory.maxReportBytes],
    ['inventory_images_queued_per_report', config.inventory.analyzeMaxPerReport],
    ['image_archive_upload_bytes', config.analysis.maxUploadBytes],
    ['image_unpacked_bytes', config.analysis.maxExpandedBytes],
    ['image_file_entries', config.analysis.maxEntries],
    ['image_analyses_per_node', config.worker.concurrency],
    ['feed_download_bytes', config.feeds.maxDownloadBytes],
    ['feed_record_bytes', config.feeds.maxRecordBytes],
    ['graphql_response_bytes', config.reports.maxResponseBytes],
    ['graphql_document_characters', QUERY_LIMITS.maxDocumentLength],
    ['graphql_query_depth', QUERY_LIMITS.maxDepth],
    ['graphql_query_cost', QUERY_LIMITS.maxCost],
    ['notification_response_bytes', config.notifications.maxResponseBytes],
    ['notification_deliveries_per_node', config.notifications.concurrency],
  ];
  return limits.map(([name, limit_value]) => ({ name, limit_value }));
}
