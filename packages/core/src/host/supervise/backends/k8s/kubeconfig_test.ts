/**
 * Reading a kubeconfig (kubeconfig.ts) from files in a temp dir: which file (flag, $KUBECONFIG,
 * ~/.kube/config), the current context's server (trailing slashes cut), CA, insecure flag,
 * token (inline or a trimmed tokenFile), client certificate and key (inline base64 data winning
 * over a file path), namespace; and every refusal whole (unreadable, not YAML, no context, no
 * server, a plugin, a credential file that cannot be read), never with a secret value.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../../../_fixture.ts";
import { removeDir, tempDir, writeFile } from "../../../_fixture.ts";
import { kubeconfigPath, readKubeconfig } from "./kubeconfig.ts";

let dir = "";
beforeEach(() => {
  dir = tempDir("ariel-kubeconfig-");
});
afterEach(() => removeDir(dir));

const b64 = (s: string) => Buffer.from(s).toString("base64");
const SECRET = "t0p-s3cret-token";

/** Write `text` as a kubeconfig in the temp dir; its path. */
function config(text: string, name = "config"): string {
  const f = join(dir, name);
  writeFile(f, text);
  return f;
}

const HINT = "check the kubeconfig (--kubeconfig, config k8s.kubeconfig, KUBECONFIG or ~/.kube/config)";

async function refusal(file: string) {
  const e = await arielErrorOf(readKubeconfig(file));
  const text = JSON.stringify([e.message, e.hint, e.context]);
  return { code: e.code, message: e.message, hint: e.hint, exit: e.exit, secret: text.includes(SECRET) };
}

describe("kubeconfigPath", () => {
  it.each([
    ["the flag first", "/f", { KUBECONFIG: "/a:/b", HOME: "/h" }, "/f"],
    ["the first non-empty entry of KUBECONFIG", undefined, { KUBECONFIG: "::/a:/b", HOME: "/h" }, "/a"],
    ["an empty KUBECONFIG: ~/.kube/config", undefined, { KUBECONFIG: "", HOME: "/h" }, "/h/.kube/config"],
    ["only colons: ~/.kube/config", undefined, { KUBECONFIG: "::", HOME: "/h" }, "/h/.kube/config"],
    ["no HOME: the user's home", undefined, {}, `${homedir()}/.kube/config`],
  ])("%s", (_what, given, env, want) => {
    expect(kubeconfigPath(given, env)).toBe(want);
  });
});

describe("readKubeconfig: what the current context gives", () => {
  // The current context's cluster and user, not the first ones; inline data decoded.
  it("inline data, several contexts, clusters and users: the current one's", async () => {
    const f = config(
      [
        "current-context: two",
        "contexts:",
        "  - { name: one, context: { cluster: c1, user: u1, namespace: wrong } }",
        "  - { name: two, context: { cluster: c2, user: u2, namespace: agents } }",
        "clusters:",
        "  - { name: c1, cluster: { server: 'https://one.example' } }",
        `  - name: c2`,
        `    cluster: { server: 'https://k.example:6443/base//', certificate-authority-data: ${b64("CA PEM")}, certificate-authority: /nope, insecure-skip-tls-verify: true }`,
        "users:",
        "  - { name: u1, user: { token: wrong } }",
        `  - name: u2`,
        `    user: { token: ${SECRET}, client-certificate-data: ${b64("CERT")}, client-key-data: ${b64("KEY")}, client-key: /nope }`,
        "",
      ].join("\n"),
    );
    expect(await readKubeconfig(f)).toEqual({
      server: "https://k.example:6443/base",
      ca: "CA PEM",
      insecure: true,
      token: SECRET,
      cert: "CERT",
      key: "KEY",
      namespace: "agents",
    });
  });

  // Files named by path; the token file's content trimmed; no namespace.
  it("credential files by path, a tokenFile trimmed, insecure only when true", async () => {
    writeFile(join(dir, "ca.pem"), "CA FILE\n");
    writeFile(join(dir, "cert.pem"), "CERT FILE\n");
    writeFile(join(dir, "key.pem"), "KEY FILE\n");
    writeFile(join(dir, "token"), `  ${SECRET}\n`);
    const f = config(
      [
        "current-context: c",
        "contexts: [{ name: c, context: { cluster: k, user: u } }]",
        `clusters: [{ name: k, cluster: { server: 'http://127.0.0.1:8080', certificate-authority: ${join(dir, "ca.pem")}, insecure-skip-tls-verify: "true" } }]`,
        `users: [{ name: u, user: { tokenFile: ${join(dir, "token")}, client-certificate: ${join(dir, "cert.pem")}, client-key: ${join(dir, "key.pem")} } }]`,
        "",
      ].join("\n"),
    );
    expect(await readKubeconfig(f)).toEqual({
      server: "http://127.0.0.1:8080",
      ca: "CA FILE\n",
      insecure: false,
      token: SECRET,
      cert: "CERT FILE\n",
      key: "KEY FILE\n",
      namespace: null,
    });
  });
});

describe("readKubeconfig: relative credential paths", () => {
  // As kubectl reads them: from the kubeconfig's own directory, whatever the cwd.
  it("are the kubeconfig's directory's, not the cwd's", async () => {
    writeFile(join(dir, "kube/ca.crt"), "CA BESIDE\n");
    writeFile(join(dir, "kube/certs/u.key"), "KEY BESIDE\n");
    writeFile(join(dir, "kube/token"), `${SECRET}\n`);
    const f = config(
      [
        "current-context: c",
        "contexts: [{ name: c, context: { cluster: k, user: u } }]",
        "clusters: [{ name: k, cluster: { server: 'https://k', certificate-authority: ca.crt } }]",
        "users: [{ name: u, user: { tokenFile: ./token, client-key: certs/u.key } }]",
        "",
      ].join("\n"),
      "kube/config",
    );
    // (The cwd, this test's, is not the kubeconfig's directory and holds none of these.)
    expect(process.cwd()).not.toBe(join(dir, "kube"));
    expect(await readKubeconfig(f)).toEqual({
      server: "https://k",
      ca: "CA BESIDE\n",
      insecure: false,
      token: SECRET,
      cert: null,
      key: "KEY BESIDE\n",
      namespace: null,
    });
  });

  it("one that cannot be read is named where it was looked for", async () => {
    const f = config(
      `current-context: c\n${CONTEXT}\nclusters: [{ name: k, cluster: { server: 'https://k', certificate-authority: ca.crt } }]\n`,
      "kube/config",
    );
    expect(await refusal(f)).toEqual({
      code: "ERR_CONFIG",
      message: `${f}: cannot read certificate-authority ${join(dir, "kube/ca.crt")}`,
      hint: HINT,
      exit: 78,
      secret: false,
    });
  });
});

describe("readKubeconfig: users without credentials", () => {
  it.each([
    ["a user that is not listed", "users: [{ name: other, user: { token: x } }]"],
    ["no users at all", ""],
    ["a user without credentials", "users: [{ name: u }]"],
  ])("%s: no credentials", async (_what, users) => {
    const f = config(
      [
        "current-context: c",
        "contexts: [{ name: c, context: { cluster: k, user: u } }]",
        "clusters: [{ name: k, cluster: { server: 'https://k' } }]",
        users,
        "",
      ].join("\n"),
    );
    expect(await readKubeconfig(f)).toEqual({
      server: "https://k",
      ca: null,
      insecure: false,
      token: null,
      cert: null,
      key: null,
      namespace: null,
    });
  });
});

const CONTEXT = "contexts: [{ name: c, context: { cluster: k, user: u } }]";
const CLUSTER = "clusters: [{ name: k, cluster: { server: 'https://k' } }]";
/** Kubeconfigs ariel refuses: what, the text, why (after the file's name). */
const REFUSALS: [string, string, string][] = [
  ["not YAML", "a: [b\n", "not valid YAML"],
  ["an empty file", "", "not a kubeconfig"],
  ["null", "null\n", "not a kubeconfig"],
  ["a list", "- a\n- b\n", "not a kubeconfig"],
  ["a string", "hello\n", "not a kubeconfig"],
  ["contexts of null only", `current-context: c\ncontexts: [null]\n${CLUSTER}\n`, 'no context "c"'],
  ["contexts not a list", `current-context: c\ncontexts: c\n${CLUSTER}\n`, 'no context "c"'],
  [
    "clusters of null only",
    `current-context: c\n${CONTEXT}\nclusters: [null]\n`,
    "cluster of context c has no server",
  ],
  ["no current context", `${CONTEXT}\n${CLUSTER}\n`, 'no context ""'],
  ["a current context not listed", `current-context: zz\n${CONTEXT}\n${CLUSTER}\n`, 'no context "zz"'],
  ["no contexts", `current-context: c\n${CLUSTER}\n`, 'no context "c"'],
  ["no clusters", `current-context: c\n${CONTEXT}\n`, "cluster of context c has no server"],
  [
    "a cluster not listed",
    `current-context: c\n${CONTEXT}\nclusters: [{ name: other, cluster: { server: 'https://k' } }]\n`,
    "cluster of context c has no server",
  ],
  [
    "a cluster without a server",
    `current-context: c\n${CONTEXT}\nclusters: [{ name: k, cluster: { insecure-skip-tls-verify: true } }]\n`,
    "cluster of context c has no server",
  ],
  [
    "a server that is not a string",
    `current-context: c\n${CONTEXT}\nclusters: [{ name: k, cluster: { server: 8080 } }]\n`,
    "cluster of context c has no server",
  ],
  [
    "an exec plugin",
    `current-context: c\n${CONTEXT}\n${CLUSTER}\nusers: [{ name: u, user: { token: ${SECRET}, exec: { command: aws } } }]\n`,
    "user u needs an exec or auth-provider plugin, which ariel does not run",
  ],
  [
    "an auth-provider plugin",
    `current-context: c\n${CONTEXT}\n${CLUSTER}\nusers: [{ name: u, user: { auth-provider: { name: gcp } } }]\n`,
    "user u needs an exec or auth-provider plugin, which ariel does not run",
  ],
  [
    "a CA file that cannot be read",
    `current-context: c\n${CONTEXT}\nclusters: [{ name: k, cluster: { server: 'https://k', certificate-authority: /nope/ca } }]\n`,
    "cannot read certificate-authority /nope/ca",
  ],
  [
    "a token file that cannot be read",
    `current-context: c\n${CONTEXT}\n${CLUSTER}\nusers: [{ name: u, user: { tokenFile: /nope/t } }]\n`,
    "cannot read tokenFile /nope/t",
  ],
  [
    "a client key file that cannot be read",
    `current-context: c\n${CONTEXT}\n${CLUSTER}\nusers: [{ name: u, user: { token: ${SECRET}, client-key: /nope/k } }]\n`,
    "cannot read client-key /nope/k",
  ],
];

describe("readKubeconfig: refusals", () => {
  it("a file that cannot be read: ERR_NOINPUT", async () => {
    const f = join(dir, "absent");
    expect(await refusal(f)).toEqual({
      code: "ERR_NOINPUT",
      message: `cannot read the kubeconfig ${f}`,
      hint: "pass --kubeconfig FILE or set KUBECONFIG",
      exit: 66,
      secret: false,
    });
  });

  it.each(REFUSALS)("%s: ERR_CONFIG", async (_what, text, why) => {
    const f = config(text);
    expect(await refusal(f)).toEqual({
      code: "ERR_CONFIG",
      message: `${f}: ${why}`,
      hint: HINT,
      exit: 78,
      secret: false,
    });
  });
});
