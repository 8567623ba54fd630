/**
 * A source's identity that survives clones and credential changes, and the credential
 * redaction every URL goes through before it is printed, logged, stored or hashed.
 *
 * `fingerprint = hex(sha256(redactUrl(remoteUrl) + "\0" + defaultBranch))` (docs/discover.md).
 *
 * Redaction rules (docs/discover.md):
 * - `scheme://userinfo@host/…`: the userinfo is dropped when it holds a `:` (user and password
 *   or token) or the scheme is not ssh-like; a bare user name over ssh (`ssh://git@host/…`,
 *   `git+ssh://`, `ssh+git://`) is kept, it is not a secret.
 * - scp-like `userinfo@host:path`: the userinfo is dropped when it holds a `:`; `git@host:path` stays.
 * - query parameters that carry secrets (`access_token`, `private_token`, `token`, `oauth_token`,
 *   `password`, `secret`, `api_key`, `apikey`, `key`, `sig`, `signature`, any case) are removed,
 *   and the `?` with them when none is left.
 * - anything else (local paths, `file://`) is returned unchanged.
 *
 * @example
 * ```ts
 * redactUrl("https://user:s3cret@example.com/r.git"); // "https://example.com/r.git"
 * redactUrl("git@github.com:acme/api.git");           // "git@github.com:acme/api.git"
 * await fingerprint("https://example.com/r.git", "main");
 * // "afc823ecde5ba4208288e3bd75f8e8a0f5bfa2dff56a9a3e97db8aa87110225f"
 * ```
 */
import { sha256Sync, toHex } from "./hash.ts";
import type { GitPort } from "./ports.ts";

const SECRET_PARAMS = new Set([
  "access_token",
  "private_token",
  "token",
  "oauth_token",
  "password",
  "secret",
  "api_key",
  "apikey",
  "key",
  "sig",
  "signature",
]);

const SSH_SCHEMES = new Set(["ssh", "git+ssh", "ssh+git"]);

/** `remoteUrl` without credentials (see the module's rules). Never throws. */
export function redactUrl(remoteUrl: string): string {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(remoteUrl);
  if (scheme) {
    const start = scheme[0].length;
    const rest = remoteUrl.slice(start);
    const authorityEnd = firstOf(rest, "/?#");
    const authority = rest.slice(0, authorityEnd);
    const at = authority.lastIndexOf("@");
    let out = remoteUrl;
    if (at !== -1) {
      const userinfo = authority.slice(0, at);
      const keep = !userinfo.includes(":") && SSH_SCHEMES.has((scheme[1] ?? "").toLowerCase());
      if (!keep) out = remoteUrl.slice(0, start) + rest.slice(at + 1);
    }
    return redactQuery(out);
  }
  // scp-like: [userinfo@]host:path, with no slash before the first colon.
  const colon = remoteUrl.indexOf(":");
  const slash = remoteUrl.indexOf("/");
  if (colon > 0 && (slash === -1 || colon < slash)) {
    const at = remoteUrl.lastIndexOf("@", slash === -1 ? remoteUrl.length : slash);
    const keep = at === -1 || !remoteUrl.slice(0, at).includes(":");
    return redactQuery(keep ? remoteUrl : remoteUrl.slice(at + 1));
  }
  return remoteUrl;
}

function firstOf(s: string, chars: string): number {
  for (let i = 0; i < s.length; i++) if (chars.includes(s[i] as string)) return i;
  return s.length;
}

function redactQuery(url: string): string {
  const q = url.indexOf("?");
  if (q === -1) return url;
  const hash = url.indexOf("#", q);
  const end = hash === -1 ? url.length : hash;
  const kept = url
    .slice(q + 1, end)
    .split(/[&;]/)
    .filter((p) => {
      const eq = p.indexOf("=");
      const name = decodeSafe(eq === -1 ? p : p.slice(0, eq)).toLowerCase();
      return p !== "" && !SECRET_PARAMS.has(name);
    });
  return url.slice(0, q) + (kept.length ? `?${kept.join("&")}` : "") + url.slice(end);
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, " "));
  } catch {
    return s;
  }
}

/**
 * Redact every URL-like credential inside free text (git's error messages, for instance):
 * `scheme://user:pw@` (ssh:// included: only a bare ssh user name is kept), `scheme://token@`,
 * scp-like `user:pw@host:` and secret query parameters. The userinfo runs to the last `@` of
 * the authority, so a password holding a raw `@` is dropped whole.
 *
 * @example
 * ```ts
 * redactText("fatal: could not read from ssh://deploy:hunter2@git.example.com/r.git");
 * // "fatal: could not read from ssh://git.example.com/r.git"
 * ```
 */
export function redactText(text: string): string {
  return redactUserinfo(text)
    .replace(/(^|[\s'"(<])([^\s:@/'"]+:[^\s@/'"]+@)(?=[^\s][^\s:]*:)/g, "$1")
    .replace(/([?&;])([A-Za-z_]+)=([^\s&;#'"]*)/g, (m, sep: string, name: string) =>
      SECRET_PARAMS.has(name.toLowerCase()) ? `${sep}${name}=REDACTED` : m,
    );
}

const SCHEME_CHAR = /[A-Za-z0-9+.-]/;
const LETTER = /[A-Za-z]/;
const USERINFO = /[^\s/?#]*@/y;

/**
 * `scheme://userinfo@` with the userinfo dropped (a bare ssh user name kept): what
 * `text.replace(/([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^\s/?#]*@)/g, …)` does, found from each `://`
 * backwards. That regex tries every letter of a long run of letters as a scheme's start and
 * scans the run from each (seconds on a 32 KB base64 line); this is one pass.
 */
function redactUserinfo(text: string): string {
  let out = "";
  let done = 0; // text before this index is in `out` or was matched
  for (let i = text.indexOf("://"); i !== -1; i = text.indexOf("://", i + 1)) {
    let start = i;
    while (start > done && SCHEME_CHAR.test(text[start - 1] as string)) start--;
    while (start < i && !LETTER.test(text[start] as string)) start++;
    if (start === i) continue;
    USERINFO.lastIndex = i + 3;
    const m = USERINFO.exec(text);
    if (m === null) continue;
    const scheme = text.slice(start, i + 3);
    const userinfo = m[0];
    const keep = SSH_SCHEMES.has(scheme.slice(0, -3).toLowerCase()) && !userinfo.includes(":");
    out += text.slice(done, start) + scheme + (keep ? userinfo : "");
    done = USERINFO.lastIndex;
    i = done - 1;
  }
  return out + text.slice(done);
}

/**
 * `value` with {@link redactText} applied to every string in it, at any depth (arrays and plain
 * objects are copied; other values are returned as they are). For records ariel prints itself.
 *
 * @example
 * ```ts
 * redactValues({ message: "https://u:pw@h/r", n: 1 }); // { message: "https://h/r", n: 1 }
 * ```
 */
export function redactValues<T>(value: T): T {
  if (typeof value === "string") return redactText(value) as T;
  if (Array.isArray(value)) return value.map((v) => redactValues(v)) as T;
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactValues(v);
    return out as T;
  }
  return value;
}

/**
 * What ariel prints of a child process's stderr (git's, a hook's): its first non-empty line,
 * trimmed and {@link redactText redacted}, or `fallback` when it printed nothing.
 *
 * @example
 * ```ts
 * childMessage("\nfatal: unable to access 'https://u:pw@h/r/'\nmore\n", "exit 128");
 * // "fatal: unable to access 'https://h/r/'"
 * ```
 */
export function childMessage(stderr: string, fallback = ""): string {
  const first = stderr
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l !== "");
  return first === undefined ? fallback : redactText(first);
}

/**
 * `hex(sha256(redactUrl(remoteUrl) + "\0" + defaultBranch))`: 64 lower-case hex digits. Hashed in
 * JavaScript ({@link sha256Sync}): Web Crypto would load Node's crypto module and its WebIDL
 * layer (tens of milliseconds of CPU) for one short digest per `ariel-worktree add`.
 */
export function fingerprint(remoteUrl: string, defaultBranch: string): Promise<string> {
  return Promise.resolve(
    toHex(sha256Sync(new TextEncoder().encode(`${redactUrl(remoteUrl)}\0${defaultBranch}`))),
  );
}

/** A source's remote as fingerprinting sees it; `url` is already redacted. */
export interface RemoteInfo {
  /** `origin` when there is one, else the first remote in config order, else "". */
  remote: string;
  url: string;
  /** The remote's HEAD target (`refs/remotes/<remote>/HEAD`), without the prefix; "" when unknown. */
  defaultBranch: string;
}

/** Read the remote and default branch of the checkout at `path` with git (two processes). */
export async function sourceRemote(git: GitPort, path: string): Promise<RemoteInfo> {
  const r = await git.run(["config", "-z", "--get-regexp", "^remote\\..*\\.url$"], { cwd: path });
  const remotes: [string, string][] = [];
  if (r.code === 0) {
    for (const entry of r.stdout.split("\0")) {
      const nl = entry.indexOf("\n");
      if (nl === -1) continue;
      const key = entry.slice(0, nl);
      const name = key.slice("remote.".length, -".url".length);
      if (!remotes.some(([n]) => n === name)) remotes.push([name, entry.slice(nl + 1)]);
    }
  }
  const chosen = remotes.find(([n]) => n === "origin") ?? remotes[0];
  if (!chosen) return { remote: "", url: "", defaultBranch: "" };
  const [remote, url] = chosen;
  const prefix = `refs/remotes/${remote}/`;
  const h = await git.run(["symbolic-ref", "-q", `${prefix}HEAD`], { cwd: path });
  const target = h.code === 0 ? h.stdout.trim() : "";
  return {
    remote,
    url: redactUrl(url),
    defaultBranch: target.startsWith(prefix) ? target.slice(prefix.length) : "",
  };
}

/** The fingerprint of the checkout at `path` (its remote and default branch, read with git). */
export async function sourceFingerprint(git: GitPort, path: string): Promise<string> {
  const { url, defaultBranch } = await sourceRemote(git, path);
  return fingerprint(url, defaultBranch);
}
