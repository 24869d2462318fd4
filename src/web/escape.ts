/**
 * Text escaping for markup this code writes by hand (the SVG builders). hono/jsx escapes everything
 * else; the only strings inserted raw are SVG documents built from these escaped pieces or by vega.
 */
const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const escapeXml = (s: string): string => s.replace(/[&<>"']/g, (ch) => ENTITIES[ch]!);
