/**
 * Whether a request's `Accept-Encoding` takes gzip (RFC 9110 §12.5.3): `gzip` (or its alias
 * `x-gzip`) or `*` listed without `q=0`. An explicit `gzip;q=0` refuses it even when `*` is
 * listed; no header at all means identity only (gzip is never forced on a client that did not
 * ask for it).
 */
export function acceptsGzip(header: string): boolean {
  if (header === '') return false;
  let gzip: boolean | undefined;
  let star: boolean | undefined;
  for (const part of header.split(',')) {
    const [coding = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const accepted = q === undefined || Number.parseFloat(q.slice(2)) > 0;
    if (coding === 'gzip' || coding === 'x-gzip') gzip = (gzip ?? false) || accepted;
    else if (coding === '*') star = accepted;
  }
  return gzip ?? star ?? false;
}
