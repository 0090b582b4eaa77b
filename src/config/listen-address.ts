/**
 * A `host:port` setting (HEDGEROW_METRICS_ADDRESS) as `listen` takes it. The schema
 * (schema.ts) has checked its form, so this only splits it: the port is what follows the last
 * colon, and an IPv6 address loses its brackets.
 */
export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

export function parseListenAddress(text: string): ListenAddress {
  const colon = text.lastIndexOf(':');
  const host = text.slice(0, colon);
  return { host: host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host, port: Number(text.slice(colon + 1)) };
}

/** The address as a URL's authority shows it (IPv6 in brackets). */
export function formatListenAddress(a: ListenAddress): string {
  return a.host.includes(':') ? `[${a.host}]:${a.port}` : `${a.host}:${a.port}`;
}
