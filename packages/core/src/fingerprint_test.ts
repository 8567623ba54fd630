import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  childMessage,
  fingerprint,
  redactText,
  redactUrl,
  redactValues,
  sourceFingerprint,
  sourceRemote,
} from "./fingerprint.ts";
import type { GitPort, GitResult } from "./ports.ts";

describe("redactUrl", () => {
  it.each([
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
  ])("%j -> %j", (input, expected) => {
    expect(redactUrl(input)).toBe(expected);
  });
});

describe("redactText", () => {
  it.each([
    [
      "fatal: unable to access 'https://user:s3cret@example.com/r.git/': Could not resolve host",
      "fatal: unable to access 'https://example.com/r.git/': Could not resolve host",
    ],
    ["remote: https://tok@h/x and ssh://git@h/y", "remote: https://h/x and ssh://git@h/y"],
    ["GET /r.git?access_token=abc&x=1 failed", "GET /r.git?access_token=REDACTED&x=1 failed"],
    ["from user:tok@host:org/r.git", "from host:org/r.git"],
    ["nothing secret here: a@b", "nothing secret here: a@b"],
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
  ])("%j", (input, expected) => {
    expect(redactText(input)).toBe(expected);
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
