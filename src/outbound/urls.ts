/** URL helpers of the outbound layer: parsing without throwing, and showing a URL without its secrets. */

export function tryParseUrl(url: string, base?: URL): URL | null {
  try {
    return new URL(url, base);
  } catch {
    return null;
  }
}

/** scheme://host[:port] of a URL, for messages and log lines. */
export function originOf(url: string): string {
  const parsed = tryParseUrl(url);
  return parsed === null ? '(invalid URL)' : `${parsed.protocol}//${parsed.host}`;
}

/** How the API shows a stored URL whose path or query may hold a token: origin, then `/***` if anything follows. */
export function redactUrl(url: string): string {
  const parsed = tryParseUrl(url);
  if (parsed === null) return '(invalid URL)';
  const hasSecretPart = parsed.pathname.length > 1 || parsed.search !== '' || parsed.hash !== '';
  return `${parsed.protocol}//${parsed.host}/${hasSecretPart ? '***' : ''}`;
}

/** Percent-decoding that leaves a malformed escape (`%zz`) as written instead of throwing. */
export function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Belt and braces for messages we did not write: drop URLs and the request's path, query and userinfo. */
export function withoutSecrets(text: string, url: URL): string {
  const secrets = [url.pathname.length > 1 ? url.pathname : '', url.search, url.username, url.password];
  return secrets
    .filter((secret) => secret !== '')
    .reduce((t, secret) => t.split(secret).join('***'), text.replace(/[a-z][a-z0-9+.-]*:\/\/\S*/gi, '<url>'));
}
