/**
 * @module Which webhook URLs are allowed. In production, only https URLs whose host is a public
 * name or address: private (RFC 1918, unique-local), loopback, link-local, CGNAT, unspecified
 * and `localhost` hosts are refused, so endpoints cannot aim our requests at internal networks.
 * In local dev (tests run a receiver on 127.0.0.1) everything http(s) is allowed.
 *
 * The switch: WEBHOOK_ALLOW_PRIVATE_URLS ("true"/"false"); when unset, allowed exactly when
 * BASE_URL is itself on a loopback host (local dev), refused otherwise (production).
 * Names are checked as written; a public name that resolves to a private address is stopped by
 * the platform (Workers' fetch does not reach private networks).
 */

export interface UrlPolicy {
  allowPrivate: boolean;
}

export function urlPolicyOf(baseUrl: string, allowPrivateVar: string | undefined): UrlPolicy {
  if (allowPrivateVar === "true") return { allowPrivate: true };
  if (allowPrivateVar === "false") return { allowPrivate: false };
  return { allowPrivate: isLoopbackHost(new URL(baseUrl).hostname) };
}

/** Null when allowed; otherwise the reason, for a 400 invalid_request. */
export function refuseWebhookUrl(raw: string, policy: UrlPolicy): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "The url is not an absolute URL.";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "The url must be http or https.";
  if (url.username || url.password) return "The url must not carry credentials.";
  if (policy.allowPrivate) return null;
  if (url.protocol !== "https:") return "The url must be https.";
  if (isPrivateHost(url.hostname)) return `The url's host ${url.hostname} is a private, loopback or link-local address.`;
  return null;
}

function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h.endsWith(".localhost") || h === "::1" || /^127\./.test(h);
}

export function isPrivateHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase().replace(/\.$/, "");
  if (isLoopbackHost(h) || h.endsWith(".local") || h.endsWith(".internal")) return true;
  const v4 = ipv4Of(h);
  if (v4) return isPrivateV4(v4);
  if (h.includes(":")) return isPrivateV6(h);
  return false;
}

/** WHATWG URL parsing already normalises decimal, hex and short IPv4 forms to dotted quads. */
function ipv4Of(h: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  return m ? m.slice(1).map(Number) : null;
}

function isPrivateV4([a, b]: number[]): boolean {
  return a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b! >= 16 && b! <= 31) || (a === 192 && b === 168) || (a === 100 && b! >= 64 && b! <= 127) || a! >= 224;
}

function isPrivateV6(h: string): boolean {
  if (h === "::" || h === "::1") return true;
  const mapped = /^::ffff:(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/.exec(h);
  if (mapped) {
    if (mapped[1]) return isPrivateV4(mapped[1].split(".").map(Number));
    const hi = parseInt(mapped[2]!, 16);
    return isPrivateV4([hi >> 8, hi & 255]);
  }
  const first = parseInt(h.split(":")[0] || "0", 16);
  return (first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80; // fc00::/7 unique-local, fe80::/10 link-local
}
