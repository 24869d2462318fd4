/**
 * Host names as the Host check (src/api/host-check.ts) compares them and as src/config.ts parses
 * ASSAY_ALLOWED_HOSTS: pure, and below both, so configuration never imports api/.
 */

/** A Host header: a DNS name or IPv4 (letters, digits, dots, hyphens) or a bracketed IPv6, then an optional port. */
const HOST_SYNTAX = /^(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(:\d{1,5})?$/i;

/** The canonical hostname of a Host value (lower case, IPv4 and IPv6 normalised, no port, no trailing dot), or null. */
export function hostnameOf(host: string): string | null {
  if (!HOST_SYNTAX.test(host)) return null;
  try {
    const name = new URL(`http://${host}`).hostname;
    return name.endsWith('.') ? name.slice(0, -1) : name;
  } catch {
    return null;
  }
}

/** A configured name (ASSAY_ALLOWED_HOSTS entry, HOST): bare IPv6 gets its brackets. Null when malformed. */
export function canonicalHostName(name: string): string | null {
  const n = name.trim();
  if (/^[0-9a-f]*:[0-9a-f:.]*$/i.test(n)) return hostnameOf(`[${n}]`);
  // A port (or a scheme, a path) would make the entry silently never match: refuse it instead.
  if (!/^(\[[0-9a-f:.]+\]|[a-z0-9._-]+)$/i.test(n)) return null;
  return hostnameOf(n);
}

/** RFC 6761: localhost and every name under .localhost resolve to loopback; so do 127.0.0.0/8 and ::1. */
export function isLoopbackName(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost') || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}
