/**
 * Turning a CycloneDX model (@cyclonedx/cyclonedx-library's Models.Bom) into JSON or XML, for every CycloneDX
 * document Vigil writes (SBOMs, VEX, vulnerability reports), with the library's own normalizers, so what each spec
 * version may carry is decided by the library.
 *
 * Two additions to the library:
 * - `analysis.firstIssued` / `analysis.lastUpdated` (CycloneDX 1.5+): the library's Analysis model has no times, so
 *   {@link TimedAnalysis} carries them and the factories below write them, after `detail`, as both schemas order them.
 * - The XML text: the library's XmlSerializer needs the optional package xmlbuilder2 for its last step, turning the
 *   normalized element tree into text. {@link CycloneDxXmlSerializer} is the library's XmlBaseSerializer (normalizer
 *   and bom-ref discrimination) with that step done here: UTF-8, escaped text and attributes, and the characters XML
 *   1.0 cannot hold at all (most C0 controls, lone surrogates, U+FFFE/U+FFFF) replaced by U+FFFD.
 */
import { Models, Serialize, Spec } from '@cyclonedx/cyclonedx-library';

export type CycloneDxSpecVersion = '1.5' | '1.6';

const SPECS: Record<CycloneDxSpecVersion, typeof Spec.Spec1dot6> = { '1.5': Spec.Spec1dot5, '1.6': Spec.Spec1dot6 };

/** An analysis with the times CycloneDX 1.5 added; RFC 3339 strings, written as given. */
export class TimedAnalysis extends Models.Vulnerability.Analysis {
  firstIssued?: string;
  lastUpdated?: string;
  constructor(op: ConstructorParameters<typeof Models.Vulnerability.Analysis>[0] & { firstIssued?: string; lastUpdated?: string } = {}) {
    super(op);
    this.firstIssued = op.firstIssued;
    this.lastUpdated = op.lastUpdated;
  }
}

const times = (data: Models.Vulnerability.Analysis) => (data instanceof TimedAnalysis ? { firstIssued: data.firstIssued, lastUpdated: data.lastUpdated } : {});

class JsonAnalysisNormalizer extends Serialize.JSON.Normalize.VulnerabilityAnalysisNormalizer {
  override normalize(data: Models.Vulnerability.Analysis, options: Serialize.Types.NormalizerOptions) {
    return { ...super.normalize(data, options), ...times(data) };
  }
}

class JsonFactory extends Serialize.JSON.Normalize.Factory {
  override makeForVulnerabilityAnalysis() {
    return new JsonAnalysisNormalizer(this);
  }
}

type XmlElement = Serialize.XML.Types.SimpleXml.Element;
type XmlNode = Serialize.XML.Types.SimpleXml.Element | Serialize.XML.Types.SimpleXml.Comment;

class XmlAnalysisNormalizer extends Serialize.XML.Normalize.VulnerabilityAnalysisNormalizer {
  override normalize(data: Models.Vulnerability.Analysis, options: Serialize.Types.NormalizerOptions, elementName: string): XmlElement {
    const element = super.normalize(data, options, elementName);
    const extra = Object.entries(times(data))
      .filter((e): e is [string, string] => e[1] !== undefined)
      .map(([name, value]): XmlElement => ({ type: 'element', name, children: value }));
    return { ...element, children: [...((element.children ?? []) as Iterable<XmlNode>), ...extra] };
  }
}

class XmlFactory extends Serialize.XML.Normalize.Factory {
  override makeForVulnerabilityAnalysis() {
    return new XmlAnalysisNormalizer(this);
  }
}

/** The BOM as a plain JSON value (no undefined members), sorted as built: the library's sorting is locale-dependent. */
export function cycloneDxJson(bom: Models.Bom, version: CycloneDxSpecVersion): Serialize.JSON.Types.Normalized.Bom {
  const normalized = new JsonFactory(SPECS[version]).makeForBom().normalize(bom, { sortLists: false });
  return JSON.parse(JSON.stringify(normalized)) as Serialize.JSON.Types.Normalized.Bom;
}

// Characters XML 1.0 does not allow anywhere (tab, newline and carriage return are allowed), and lone surrogates.
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function escapeText(value: string | number): string {
  return String(value).replace(NOT_XML, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function escapeAttribute(value: string | number): string {
  // Tabs and line breaks in an attribute would be normalized to spaces by a reader; character references keep them.
  return escapeText(value).replace(/"/g, '&quot;').replace(/\t/g, '&#9;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;');
}

function writeElement(element: XmlNode, out: string[], inheritedNs?: string): void {
  if (element.type !== 'element') return;
  const ns = element.namespace?.toString();
  const attributes = Object.entries(element.attributes ?? {}).filter((e): e is [string, string | number] => e[1] !== undefined);
  if (ns && ns !== inheritedNs && !attributes.some(([name]) => name === 'xmlns')) attributes.unshift(['xmlns', ns]);
  out.push(`<${element.name}${attributes.map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`).join('')}`);
  const children = element.children;
  if (children === undefined) {
    out.push('/>');
    return;
  }
  out.push('>');
  if (typeof children === 'string' || typeof children === 'number') out.push(escapeText(children));
  else for (const child of children) writeElement(child, out, ns ?? inheritedNs);
  out.push(`</${element.name}>`);
}

/** The library's XML serializer with the text written by {@link writeElement} instead of xmlbuilder2. */
class CycloneDxXmlSerializer extends Serialize.XmlBaseSerializer {
  protected _serialize(normalizedBom: XmlElement): string {
    const out = ['<?xml version="1.0" encoding="UTF-8"?>\n'];
    writeElement(normalizedBom, out);
    out.push('\n');
    return out.join('');
  }
}

/** The BOM as an XML document (UTF-8). */
export function cycloneDxXml(bom: Models.Bom, version: CycloneDxSpecVersion): string {
  return new CycloneDxXmlSerializer(new XmlFactory(SPECS[version])).serialize(bom, { sortLists: false });
}
