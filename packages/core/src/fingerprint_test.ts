import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  childMessage,
  fingerprint,
  type RemoteInfo,
  redactText,
  redactUrl,
  redactValues,
  sourceFingerprint,
  sourceRemote,
} from "./fingerprint.ts";
import type { GitPort, GitResult } from "./ports.ts";
import { eachMaps } from "./testing/cases.ts";

describe("redactUrl", () => {
  eachMaps(
    redactUrl,
    [
      ["https://user:s3cret@example.com/r.git", "https://example.com/r.git"],
      ["https://ghp_TOKEN123@github.com/acme/api.git", "https://github.com/acme/api.git"],
      ["https://x-access-token:tok@github.com/a/b", "https://github.com/a/b"],
      ["http://user@host:8080/r", "http://host:8080/r"],
      ["https://us%40er:p%3Ass@host/r", "https://host/r"],
      ["https://a:b@c@host/r", "https://host/r"], // the last @ of the authority ends the userinfo
      ["ssh://git@host/r.git", "ssh://git@host/r.git"],
      ["ssh://user:pw@host/r.git", "ssh://host/r.git"],
      ["git+ssh://git@host/r", "git+ssh://git@host/r"],
      ["SSH://git@host/r", "SSH://git@host/r"],
      ["git://host/r.git", "git://host/r.git"],
      ["git://tok@host/r.git", "git://host/r.git"],
      ["https://host/r.git", "https://host/r.git"],
      ["https://host/p@th/r.git", "https://host/p@th/r.git"], // an @ in the path is not userinfo
      ["git@github.com:acme/api.git", "git@github.com:acme/api.git"],
      ["user:token@host:acme/api.git", "host:acme/api.git"],
      ["host:acme/api.git", "host:acme/api.git"],
      ["https://host/r.git?access_token=abc", "https://host/r.git"],
      ["https://host/r.git?private_token=abc&ref=main", "https://host/r.git?ref=main"],
      ["https://host/r.git?a=1&Token=abc&b=2#frag", "https://host/r.git?a=1&b=2#frag"],
      ["https://host/r.git?oauth_token=x;password=y", "https://host/r.git"],
      ["https://u:p@host/r?token=t", "https://host/r"],
      ["/srv/git/r.git", "/srv/git/r.git"],
      ["./rel/path:with-colon", "./rel/path:with-colon"],
      ["file:///srv/git/r.git", "file:///srv/git/r.git"],
      ["", ""],
      ["ssh+git://u:p@host/r", "ssh+git://host/r"],
      ["git+ssh://u:p@host/r", "git+ssh://host/r"],
      ["git+ssh://tok:@host/r", "git+ssh://host/r"], // an empty password still marks a secret
      ["sshx://git@host/r", "sshx://host/r"], // only the ssh schemes keep a bare user
      ["https://host?x=a@b", "https://host?x=a@b"], // an @ in the query is not userinfo
      ["https://host#a@b", "https://host#a@b"], // nor in the fragment
      ["https://u:p@host", "https://host"], // an authority that ends the URL
      ["https://host/r?access%5Ftoken=x&ok=1", "https://host/r?ok=1"], // names are percent-decoded
      ["https://host/r?API+KEY=1&api_key=2", "https://host/r?API+KEY=1"], // + is a space, not _
      ["https://host/r?%E0%A4%A=1", "https://host/r?%E0%A4%A=1"], // undecodable: compared as it is
      ["https://host/r?&&a=1&", "https://host/r?a=1"], // empty parameters go
      ["https://host/r?key", "https://host/r"], // a secret name without a value goes too
      ["https://host/r?keyring=1&sig=2&signature=3&apikey=4&secret=5", "https://host/r?keyring=1"],
      ["host:path?token=x", "host:path"], // scp-like URLs lose secret parameters too
      ["a/b:c?token=x", "a/b:c?token=x"], // a slash before the colon: a local path, untouched
      ["u:p@host:org/r@x", "host:org/r@x"], // an @ after the first slash is part of the path
      [":x@y", ":x@y"], // a leading colon is no host
      ["u:p@host:repo", "host:repo"], // scp-like without any slash
      ["https://h/r?a=1#x&token=y", "https://h/r?a=1#x&token=y"], // the fragment is not the query
      ["ssh://git@host:22/r", "ssh://git@host:22/r"], // a port is no password
    ],
    "%j -> %j",
  );
});

describe("redactText", () => {
  eachMaps(
    redactText,
    [
      [
        "fatal: unable to access 'https://user:s3cret@example.com/r.git/': Could not resolve host",
        "fatal: unable to access 'https://example.com/r.git/': Could not resolve host",
      ],
      ["remote: https://tok@h/x and ssh://git@h/y", "remote: https://h/x and ssh://git@h/y"],
      ["GET /r.git?access_token=abc&x=1 failed", "GET /r.git?access_token=REDACTED&x=1 failed"],
      ["from user:tok@host:org/r.git", "from host:org/r.git"],
      ["nothing secret here: a@b", "nothing secret here: a@b"],
      // ssh keeps a bare user name, never a password (the outside mutation run's first survivor).
      ["clone ssh://user:s3cret@h/r failed", "clone ssh://h/r failed"],
      ["clone SSH://user:s3cret@h/r failed", "clone SSH://h/r failed"],
      ["clone git+ssh://u:p@h/r and ssh+git://git@h/r", "clone git+ssh://h/r and ssh+git://git@h/r"],
      ["sshx://git@h/r", "sshx://h/r"],
      ["https://u:p@h/a https://v:q@h/b", "https://h/a https://h/b"], // every URL in the text
      [
        "'u:p@host:org/r' /(u:p@host:y) /<u:p@host:z> \"u:p@host:w\"",
        "'host:org/r' /(host:y) /<host:z> \"host:w\"",
      ],
      ["u:p@host:org/r", "host:org/r"], // at the very start
      ["see git+ssh://git@h/r", "see git+ssh://git@h/r"],
      ["mail me: a:b@c", "mail me: a:b@c"], // no colon after the host: not a URL
      ["x?token=a;password=b&sig=c#frag", "x?token=REDACTED;password=REDACTED&sig=REDACTED#frag"],
      ["x?Access_Token='abc' done", "x?Access_Token=REDACTED'abc' done"],
      ["x?ref=main&keyring=1", "x?ref=main&keyring=1"],
      // ssh:// keeps a bare user name only: a password or token in it is a secret like any other.
      [
        "fatal: could not read from ssh://deploy:hunter2@git.example.com/r.git",
        "fatal: could not read from ssh://git.example.com/r.git",
      ],
      ["ssh://git@h/r and ssh://u:pw@h/r", "ssh://git@h/r and ssh://h/r"],
      ["git+ssh://u:pw@h/r", "git+ssh://h/r"],
      ["ssh+git://u:pw@h/r", "ssh+git://h/r"],
      ["SSH://U:PW@h/r", "SSH://h/r"],
      ["'ssh://u:pw@h:2222/r'", "'ssh://h:2222/r'"],
      // A password holding a raw @: the userinfo runs to the last @ of the authority.
      ["https://u:p@ss@host/r", "https://host/r"],
      ["ssh://u:p@ss@host/r", "ssh://host/r"],
      // Tokens in https URLs, several on one line, and on every line of a text.
      ["https://ghp_abcDEF123@github.com/a/b", "https://github.com/a/b"],
      ["a https://u:p@h/x b http://t@h/y", "a https://h/x b http://h/y"],
      ["one https://u:p@h/x\ntwo ssh://v:q@h/y\n", "one https://h/x\ntwo ssh://h/y\n"],
    ],
    "%j",
  );

  // The userinfo pass was a regex that scanned a run of letters from each of its letters
  // (quadratic: seconds on a 32 KB base64 line). Its replacement must agree with it exactly.
  const regexUserinfo = (text: string) =>
    text.replace(/([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^\s/?#]*@)/g, (_m, scheme: string, userinfo: string) =>
      ["ssh", "git+ssh", "ssh+git"].includes(scheme.slice(0, -3).toLowerCase()) && !userinfo.includes(":")
        ? scheme + userinfo
        : scheme,
    );
  // redactText's next pass (scp-like) as it was: its lookahead rescanned the rest of a long
  // token for every match. The strings below hold no `=`, so the query pass is a no-op.
  const afterUserinfo = (text: string) =>
    text.replace(/(^|[\s'"(<])([^\s:@/'"]+:[^\s@/'"]+@)(?=[^\s]+:)/g, "$1");

  it("agrees with the regex it replaced on 20,000 generated strings", () => {
    const alphabet = [
      "s",
      "h",
      "S",
      "1",
      "+",
      ".",
      "-",
      ":",
      "/",
      "//",
      "://",
      "@",
      " ",
      "?",
      "#",
      "\n",
      "ssh",
      "git+",
    ];
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    const differ: string[] = [];
    for (let n = 0; n < 20_000; n++) {
      let text = "";
      const len = next() % 14;
      for (let k = 0; k < len; k++) text += alphabet[next() % alphabet.length];
      if (redactText(text) !== afterUserinfo(regexUserinfo(text))) differ.push(text);
    }
    expect(differ).toEqual([]);
  });

  it("a 128 KB token of scp-like pairs: the first (at the line's start) goes, in one pass", () => {
    expect(redactText(`(${"a:b@".repeat(32_768)}h:r`)).toBe(`${"a:b@".repeat(32_767)}h:r`);
  });

  it("a 64 KB line of letters with a URL at its end: only the URL's userinfo goes", () => {
    const blob = "QUJD".repeat(16_384);
    expect(redactText(`${blob}https://u:p@h/r ${blob}`)).toBe(`${blob}https://h/r ${blob}`);
  });
});

describe("childMessage", () => {
  it.each([
    [
      "\n  fatal: unable to access 'https://u:pw@h/r/'\nmore\n",
      "exit 1",
      "fatal: unable to access 'https://h/r/'",
    ],
    ["error: hook says ssh://deploy:hunter2@h/r\n", "exit 1", "error: hook says ssh://h/r"],
    ["", "exit 128", "exit 128"],
    ["\n \n", "exit 2", "exit 2"],
  ])("%j", (stderr, fallback, expected) => {
    expect(childMessage(stderr, fallback)).toBe(expected);
  });
});

describe("redactValues", () => {
  it("redacts every string at any depth and keeps everything else", () => {
    const input = {
      message: "git push failed: https://u:pw@h/r",
      n: 3,
      ok: true,
      none: null,
      list: ["ssh://a:b@h/x", 1],
      nested: { deep: { url: "https://tok@h/y" } },
    };
    expect(redactValues(input)).toEqual({
      message: "git push failed: https://h/r",
      n: 3,
      ok: true,
      none: null,
      list: ["ssh://h/x", 1],
      nested: { deep: { url: "https://h/y" } },
    });
    expect(input.message).toBe("git push failed: https://u:pw@h/r"); // a copy, not in place
  });
});

describe("fingerprint", () => {
  const sha = (s: string) => createHash("sha256").update(s).digest("hex");
  it.each([
    ["https://example.com/r.git", "main", "afc823ecde5ba4208288e3bd75f8e8a0f5bfa2dff56a9a3e97db8aa87110225f"],
    [
      "https://user:s3cret@example.com/r.git",
      "main",
      "afc823ecde5ba4208288e3bd75f8e8a0f5bfa2dff56a9a3e97db8aa87110225f",
    ],
    [
      "git@github.com:acme/api.git",
      "main",
      "df9d4bef61fba951aa9c379b208c3a18cd90ac5ab926f1c2b5f941a210827139",
    ],
    ["", "", "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d"],
  ])("%j %j", async (url, branch, expected) => {
    expect(await fingerprint(url, branch)).toBe(expected);
    expect(sha(`${redactUrl(url)}\0${branch}`)).toBe(expected);
  });

  it("differs by default branch", async () => {
    expect(await fingerprint("https://h/r", "main")).not.toBe(await fingerprint("https://h/r", "master"));
  });
});

/** A fake git answering by the joined argv. */
function fakeGit(answers: Record<string, Partial<GitResult>>): GitPort & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async run(args) {
      const key = args.join(" ");
      calls.push(key);
      return { code: 1, stdout: "", stderr: "", ...answers[key] };
    },
  };
}

const CONFIG = "config -z --get-regexp ^remote\\..*\\.url$";

describe("sourceRemote", () => {
  it("prefers origin and reads its HEAD", async () => {
    const git = fakeGit({
      [CONFIG]: { code: 0, stdout: "remote.up.url\nhttps://u:p@h/up\0remote.origin.url\nhttps://tok@h/o\0" },
      "symbolic-ref -q refs/remotes/origin/HEAD": { code: 0, stdout: "refs/remotes/origin/trunk\n" },
    });
    expect(await sourceRemote(git, "/r")).toEqual({
      remote: "origin",
      url: "https://h/o",
      defaultBranch: "trunk",
    });
    expect(await sourceFingerprint(git, "/r")).toBe(await fingerprint("https://h/o", "trunk"));
  });

  it("falls back to the first remote, with a dotted name", async () => {
    const git = fakeGit({
      [CONFIG]: { code: 0, stdout: "remote.my.fork.url\ngit@h:a/b\0remote.zed.url\nx\0" },
    });
    expect(await sourceRemote(git, "/r")).toEqual({ remote: "my.fork", url: "git@h:a/b", defaultBranch: "" });
    expect(git.calls).toEqual([CONFIG, "symbolic-ref -q refs/remotes/my.fork/HEAD"]);
  });

  it("no remote: empty url and branch", async () => {
    const git = fakeGit({});
    expect(await sourceRemote(git, "/r")).toEqual({ remote: "", url: "", defaultBranch: "" });
    expect(await sourceFingerprint(git, "/r")).toBe(
      "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    );
  });
});

describe("sourceRemote: what git answers", () => {
  function git(config: Partial<GitResult>, head: Partial<GitResult>): GitPort & { cwds: unknown[] } {
    const cwds: unknown[] = [];
    return {
      cwds,
      async run(args, options) {
        cwds.push(options?.cwd);
        const r = args[0] === "config" ? config : head;
        return { code: 0, stdout: "", stderr: "", ...r };
      },
    };
  }

  it.each<[string, Partial<GitResult>, Partial<GitResult>, RemoteInfo]>([
    [
      "a failed config read is no remote, whatever it printed",
      { code: 1, stdout: "remote.o.url\nU\0" },
      {},
      { remote: "", url: "", defaultBranch: "" },
    ],
    [
      "entries without a value are skipped",
      { stdout: "junk\0remote.o.url\nhttps://h/o\0" },
      { code: 1 },
      { remote: "o", url: "https://h/o", defaultBranch: "" },
    ],
    [
      "the first URL of a remote counts",
      { stdout: "remote.o.url\nhttps://h/a\0remote.o.url\nhttps://h/b\0" },
      { stdout: "refs/remotes/o/main\n" },
      { remote: "o", url: "https://h/a", defaultBranch: "main" },
    ],
    [
      "a failed symbolic-ref is no default branch, whatever it printed",
      { stdout: "remote.o.url\nhttps://h/o\0" },
      { code: 1, stdout: "refs/remotes/o/main\n" },
      { remote: "o", url: "https://h/o", defaultBranch: "" },
    ],
    [
      "a HEAD pointing at another remote is no default branch",
      { stdout: "remote.o.url\nhttps://h/o\0" },
      { stdout: "refs/remotes/x/main\n" },
      { remote: "o", url: "https://h/o", defaultBranch: "" },
    ],
  ])("%s", async (_n, config, head, expected) => {
    const g = git(config, head);
    expect(await sourceRemote(g, "/src")).toEqual(expected);
    expect(g.cwds.every((c) => c === "/src")).toBe(true);
  });
});
