/**
 * File downloads of API documents (SBOMs, VEX, the vulnerability report). A plain link cannot send the session's
 * Authorization header, so the file is fetched with it and handed to the browser as a blob.
 */
import { API_BASE } from '../../api/client';
import { apiErrorFrom, networkError } from '../../api/errors';
import { type Session, sessionHeaders } from '../../session';

export interface Download {
  label: string;
  /** The API path under /v2. */
  path: string;
  filename: string;
}

export function imageDownloads(digest: string): { sboms: Download[]; vex: Download[]; report: Download } {
  const base = `/images/${encodeURIComponent(digest)}`;
  const short = digest.replace(/^sha256:/, '').slice(0, 12);
  return {
    sboms: [
      { label: 'SBOM (native JSON)', path: `${base}/sboms/native-json`, filename: `${short}-sbom.native.json` },
      { label: 'SBOM (CycloneDX JSON)', path: `${base}/sboms/cyclonedx-json`, filename: `${short}-sbom.cdx.json` },
      { label: 'SBOM (SPDX JSON)', path: `${base}/sboms/spdx-json`, filename: `${short}-sbom.spdx.json` },
    ],
    vex: [
      { label: 'VEX (OpenVEX)', path: `${base}/vex/openvex`, filename: `${short}-vex.openvex.json` },
      { label: 'VEX (CycloneDX JSON)', path: `${base}/vex/cyclonedx-json`, filename: `${short}-vex.cdx.json` },
    ],
    report: { label: 'Vulnerability report (CycloneDX JSON)', path: `${base}/vuln/all/cyclonedx-json`, filename: `${short}-vulnerabilities.cdx.json` },
  };
}

export async function downloadFile(session: Session, download: Download): Promise<void> {
  let response: Response;
  try {
    response = await fetch(`${API_BASE}${download.path}`, { headers: sessionHeaders(session), credentials: 'omit' });
  } catch (cause) {
    throw networkError(cause);
  }
  if (!response.ok) {
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON: the error shows the text.
    }
    throw apiErrorFrom(response.status, body, response.statusText);
  }
  // Read as bytes, not response.blob(): Chromium keeps no copy of a body read as a blob for its devtools, so the
  // browser tests could not check the response against the spec.
  const type = response.headers.get('content-type') ?? 'application/octet-stream';
  const url = URL.createObjectURL(new Blob([await response.arrayBuffer()], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = download.filename;
  document.body.append(link);
  link.click();
  link.remove();
  // The browser has taken the file once the click is handled.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
