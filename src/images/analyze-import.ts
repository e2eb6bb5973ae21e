/**
 * "Analysis" of an imported SBOM: the packages come from the uploaded document (syft, CycloneDX or SPDX), the
 * image facts from the uploaded manifest and config when given. Stored like any analysis.
 */
import type { Logger } from 'pino';
import type { Services } from '../service.js';
import { refreshImageFindings } from '../vulns/findings.js';
import { detectDistro } from '../ecosystems/distro.js';
import { guessDockerfile, historyOf } from './history.js';
import { readImportParts, setOperationStatus } from './imports.js';
import { packageCountsByType, type DistroInfo } from '../ecosystems/model.js';
import { readSbomPackages } from './sbom/index.js';
import { type ImportedContentSearch, type ImportedFileContent, importedRetrievedFiles, importedSearchResults } from './scanners/imported.js';
import type { ImageConfig } from './sources/image-config.js';
import { saveAnalysis, type ImageRecord, type ImageSourceRecord } from './store.js';

interface ManifestLike {
  config?: { digest?: string };
  layers?: { digest?: string; size?: number; mediaType?: string }[];
}

export async function analyzeImport(services: Services, image: ImageRecord, source: ImageSourceRecord, log: Logger): Promise<void> {
  const uuid = source.operation_uuid!;
  const contents = source.contents ?? {};
  await setOperationStatus(services.db, uuid, 'processing');
  try {
    const parts = await readImportParts(services.db, uuid, contents);
    const read = readSbomPackages(parts.packages);
    const manifest = parts.manifest as ManifestLike | undefined;
    const config = parts.image_config as ImageConfig | undefined;
    const dockerfile = parts.dockerfile === undefined ? undefined : String(parts.dockerfile);
    const secrets = parts.secret_searches as ImportedContentSearch[] | undefined;
    const searches = parts.content_searches as ImportedContentSearch[] | undefined;
    const fileContents = parts.file_contents as ImportedFileContent[] | undefined;
    const history = config ? historyOf(config) : [];
    const distro: DistroInfo | undefined = read.distro ?? detectDistro(new Map());
    const layers = (manifest?.layers ?? []).map((l) => ({ digest: l.digest ?? '', size: l.size ?? 0, media_type: l.mediaType ?? '' }));
    const saved = await saveAnalysis(services.db, image.account_name, image.image_digest, {
      imageId: manifest?.config?.digest ?? image.image_digest,
      arch: config?.architecture ?? null,
      distro: distro?.name ?? null,
      distroVersion: distro?.version ?? null,
      distroLike: distro?.like ?? [],
      dockerfileMode: dockerfile ? 'Actual' : config ? 'Guessed' : null,
      imageSize: layers.reduce((n, l) => n + l.size, 0),
      layerCount: layers.length,
      packages: read.packages,
      // An SBOM lists packages, not the filesystem.
      files: [],
      documents: {
        ...(manifest ? { manifest } : {}),
        ...(config ? { config } : {}),
        history,
        dockerfile: dockerfile ?? guessDockerfile(history),
        layers,
        warnings: read.warnings,
        // Absent parts stay absent: the gates then know the search did not run, rather than found nothing.
        ...(secrets ? { secret_search: importedSearchResults(secrets) } : {}),
        ...(searches ? { content_search: importedSearchResults(searches) } : {}),
        ...(fileContents ? { retrieved_files: importedRetrievedFiles(fileContents) } : {}),
      },
    }, {
      accountName: image.account_name,
      type: 'user.image.analysis.completed',
      resourceType: 'image_digest',
      resourceId: image.image_digest,
      details: { source: 'import', sbom_format: read.format, warnings: read.warnings.slice(0, 20) },
    }, (trx) => refreshImageFindings(trx, image.account_name, image.image_digest).then(() => undefined));
    await setOperationStatus(services.db, uuid, 'complete');
    if (saved) log.info({ packages: read.packages.length, packages_by_type: packageCountsByType(read.packages), format: read.format }, 'import analyzed');
  } catch (err) {
    await setOperationStatus(services.db, uuid, 'failed');
    throw err;
  }
}
