import { describe, expect, it } from "vitest";
import { errorOf } from "./_fixture.ts";
import {
  branchNameProblem,
  generateTaskId,
  quoteValue,
  slugify,
  sourceNameProblem,
  taskIdProblem,
  validateBranchName,
  validateSourceName,
  validateTaskId,
} from "./names.ts";
import type { Random } from "./ports.ts";
import { eachMaps } from "./testing/cases.ts";

const LONG = "a".repeat(300);
/** Hostile inputs every validator must reject. */
const HOSTILE: [string, string][] = [
  ["command substitution", "$(rm -rf /)"],
  ["semicolon", "a;b"],
  ["pipe", "a|b"],
  ["backticks", "`id`"],
  ["newline", "a\nb"],
  ["NUL", "a\0b"],
  ["carriage return", "a\rb"],
  ["leading dash", "-rf"],
  ["parent dir", "../x"],
  ["absolute", "/etc/passwd"],
  ["space", "a b"],
  ["ampersand", "a&b"],
  ["redirect", "a>b"],
  ["dollar", "$HOME"],
  ["quote", "a'b"],
  ["double quote", 'a"b'],
  ["glob star", "a*"],
  ["cyrillic a (homoglyph)", "\u0430pi"],
  ["fullwidth slash", "a\uff0fb"],
  ["right-to-left override", "a\u202eb"],
  ["zero width space", "a\u200bb"],
  ["300 characters", LONG],
  ["empty", ""],
  ["backslash", "a\\b"],
  ["tilde", "~x"],
];

describe("validateTaskId", () => {
  it.each([["a"], ["A1"], ["fix-login-3k9x2a"], ["v1.2_beta"], ["a".repeat(128)], ["x.lockfile"]])(
    "accepts %j",
    (id) => {
      expect(validateTaskId(id)).toBe(id);
    },
  );

  it.each([
    ...HOSTILE,
    ["129 characters", "a".repeat(129)],
    ["leading dot", ".x"],
    ["leading underscore", "_x"],
    ["slash", "a/b"],
    ["double dot", "a..b"],
    ["trailing .lock", "x.lock"],
    ["trailing dot", "x."],
    ["refs prefix", "refs/heads/x"],
  ])("rejects %s", (_name, id) => {
    const err = errorOf(() => validateTaskId(id));
    expect(err.code).toBe("ERR_INVALID_TASK_ID");
    expect(err.exit).toBe(65);
    expect(err.message).toContain(quoteValue(id));
    expect(err.message).not.toMatch(/[\x00-\x1f]/);
  });

  eachMaps(
    taskIdProblem,
    [
      ["", "is empty"],
      ["a".repeat(129), "is longer than 128 characters"],
      ["a b", "must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"],
      ["a..b", 'contains ".."'],
      ["x.lock", 'ends with ".lock"'],
      ["x.", 'ends with "."'],
    ],
    "gives the reason for %j",
  );
});

describe("validateBranchName", () => {
  it.each([
    ["main"],
    ["ariel/fix-login"],
    ["feature/a.b/c_d-e"],
    ["release-1.0"],
    ["x".repeat(200)],
    ["a/b.locker"],
  ])("accepts %j", (name) => {
    expect(validateBranchName(name)).toBe(name);
  });

  it.each([
    ...HOSTILE,
    ["201 characters", "x".repeat(201)],
    ["refs/heads prefix", "refs/heads/x"],
    ["HEAD", "HEAD"],
    ["at sign", "@"],
    ["reflog syntax", "a@{1}"],
    ["double dot", "a..b"],
    ["trailing .lock", "x.lock"],
    ["component .lock", "a.lock/b"],
    ["trailing dot", "x."],
    ["trailing slash", "x/"],
    ["leading slash", "/x"],
    ["double slash", "a//b"],
    ["component with leading dot", "a/.b"],
    ["leading dot", ".a"],
    ["caret", "a^b"],
    ["colon", "a:b"],
    ["question mark", "a?b"],
    ["bracket", "a[b"],
    ["DEL", "a\x7fb"],
    ["tab", "a\tb"],
    ["leading underscore", "_a"],
    ["plus (outside allowlist)", "a+b"],
  ])("rejects %s", (_name, name) => {
    const err = errorOf(() => validateBranchName(name));
    expect(err.code).toBe("ERR_INVALID_BRANCH");
    expect(err.exit).toBe(65);
    expect(err.message).toContain(quoteValue(name));
    expect(err.message).not.toMatch(/[\x00-\x1f\u007f-\uffff]/u);
  });

  eachMaps(
    branchNameProblem,
    [
      ["a..b", 'contains ".."'],
      ["a@{1}", 'contains "@{"'],
      ["a b", 'contains the forbidden character " "'],
      ["a\nb", 'contains the forbidden character "\\n"'],
      ["refs/heads/x", 'starts with "refs/": give the short branch name'],
      ["-x", 'starts with "-"'],
      ["a.lock/b", 'has a component ending with ".lock" ("a.lock")'],
      ["a/.b", 'has a component starting with "." (".b")'],
      ["a//b", 'contains "//"'],
      ["HEAD", 'is "HEAD"'],
      ["a\u0430", "must match ^[A-Za-z0-9][A-Za-z0-9._/-]*$"],
    ],
    "gives the reason for %j",
  );
});

describe("validateSourceName", () => {
  it.each([["."], ["api"], ["services/api"], ["a.b_c-d"], [".github"], ["x@2"], ["a".repeat(255)]])(
    "accepts %j",
    (name) => {
      expect(validateSourceName(name)).toBe(name);
    },
  );

  it.each([
    ...HOSTILE,
    ["256 characters", "a".repeat(256)],
    ["dot segment", "./api"],
    ["dot-dot segment", "a/../b"],
    ["trailing slash", "api/"],
    ["empty segment", "a//b"],
    ["leading dash segment", "a/-rf"],
    ["dot-dot", ".."],
    ["hash", "a#b"],
    ["braces", "a{b}"],
    ["parentheses", "a(b)"],
    ["windows separator", "a\\b"],
  ])("rejects %s", (_name, name) => {
    const err = errorOf(() => validateSourceName(name));
    expect(err.code).toBe("ERR_INVALID_NAME");
    expect(err.exit).toBe(65);
    expect(err.message).toContain(quoteValue(name));
  });

  eachMaps(
    sourceNameProblem,
    [
      ["/etc", "is absolute: give the path relative to the workspace root"],
      ["a//b", "has an empty segment"],
      ["a/../b", 'has a ".." segment'],
      ["a\0b", 'contains the control character "\\u0000"'],
      ["$(x)", 'contains the character "$"'],
      ["-rf", 'has a segment starting with "-" ("-rf")'],
    ],
    "gives the reason for %j",
  );
});

describe("quoteValue", () => {
  it.each([
    ["plain", "abc", '"abc"'],
    ["newline", "a\nb", '"a\\nb"'],
    ["NUL", "\0", '"\\u0000"'],
    ["bidi override", "a\u202e", '"a\\u202e"'],
    ["quote", 'a"b', '"a\\"b"'],
    ["long", "x".repeat(70), `"${"x".repeat(64)}"...`],
  ])("%s", (_name, input, expected) => {
    expect(quoteValue(input)).toBe(expected);
  });
});

describe("slugify", () => {
  eachMaps(
    slugify,
    [
      ["Fix login!", "fix-login"],
      ["  spaces  and  tabs\t", "spaces-and-tabs"],
      ["../../etc", "etc"],
      ["a..b", "a.b"],
      ["$(rm -rf /)", "rm-rf"],
      ["", "task"],
      ["!!!", "task"],
      ["café", "caf"],
      ["x.lock", "x.lock"],
      ["a".repeat(200), "a".repeat(121)],
      [`${"a".repeat(120)}.b`, "a".repeat(120)],
    ],
    "%j → %j",
  );
});

/** Random bytes from a fixed list, cycling. */
function fixedRandom(bytes: number[]): Random {
  let i = 0;
  return {
    bytes: (n) => Uint8Array.from({ length: n }, () => bytes[i++ % bytes.length] ?? 0),
  };
}

describe("generateTaskId", () => {
  it.each([
    ["Fix login", [0, 1, 2, 3, 4, 5], "fix-login-abcdef"],
    ["x", [25, 26, 35, 36, 71, 251], "x-z09a99"],
    ["", [255, 252, 0, 1, 2, 3, 4, 5], "task-abcdef"],
    ["$(rm -rf /)", [10, 10, 10, 10, 10, 10], "rm-rf-kkkkkk"],
  ])("%j with bytes %j → %j", (slug, bytes, expected) => {
    expect(generateTaskId(slug, fixedRandom(bytes))).toBe(expected);
  });

  it("always yields a valid task id", () => {
    let seed = 42;
    const random: Random = {
      bytes: (n) =>
        Uint8Array.from({ length: n }, () => {
          seed = (seed * 1103515245 + 12345) & 0x7fffffff;
          return seed >> 16;
        }),
    };
    for (const slug of ["a", "../..", "x.lock", "A B C", "a".repeat(500), "-", "."]) {
      const id = generateTaskId(slug, random);
      expect(taskIdProblem(id), id).toBeNull();
      expect(id).toMatch(/-[a-z0-9]{6}$/);
    }
  });
});

describe("names: exact answers at the edges", () => {
  // Values from untyped JSON may not be strings at all: each check says "is empty", never throws.
  it.each([undefined, null, 42])("a non-string %j is empty for every check", (v) => {
    const x = v as unknown as string;
    expect([taskIdProblem(x), branchNameProblem(x), sourceNameProblem(x)]).toEqual([
      "is empty",
      "is empty",
      "is empty",
    ]);
  });

  it.each<[string, string, string | null]>([
    ["empty", "", "is empty"],
    ["@", "@", 'is "@"'],
    ["@ inside", "a@b", "must match ^[A-Za-z0-9][A-Za-z0-9._/-]*$"],
    ["HEAD/x", "HEAD/x", 'is "HEAD"'],
    ["x/HEAD", "x/HEAD", null],
    ["leading slash", "/x", 'starts or ends with "/"'],
    ["200 characters", "x".repeat(200), null],
    ["201 characters", "x".repeat(201), "is longer than 200 characters"],
    ["non-ASCII", "caf\u00e9", "must match ^[A-Za-z0-9][A-Za-z0-9._/-]*$"],
  ])("branchNameProblem: %s", (_n, name, expected) => {
    expect(branchNameProblem(name)).toBe(expected);
  });

  it.each<[string, string, string | null]>([
    ["empty", "", "is empty"],
    ["the root", ".", null],
    ["255 characters", "a".repeat(255), null],
    ["256 characters", "a".repeat(256), "is longer than 255 characters"],
    ["a segment starting with ,", "a/,b", 'has an invalid segment ",b"'],
    ["a segment starting with =", "=b", 'has an invalid segment "=b"'],
    ["a segment with , and = inside", "a,b=c", null],
    ["a dot segment", "a/./b", 'has a "." segment'],
    ["a space", "a b", 'contains the character " "'],
    ["DEL", "a\x7f", 'contains the control character "\\u007f"'],
  ])("sourceNameProblem: %s", (_n, name, expected) => {
    expect(sourceNameProblem(name)).toBe(expected);
  });

  it("validateSourceName's hint lists the allowed characters", () => {
    expect(errorOf(() => validateSourceName("a b"))).toMatchObject({
      code: "ERR_INVALID_NAME",
      message: 'invalid source name "a b": contains the character " "',
      hint: "a source name is . or a workspace-relative path of letters, digits, '.', '_', '@', '+', ',', '=' and '-'",
    });
  });

  it.each<[string, unknown, string]>([
    ["a number", 42, '"42"'],
    ["null", null, '"null"'],
    ["exactly 64 characters: not cut", "y".repeat(64), `"${"y".repeat(64)}"`],
    ["65 characters: cut", "y".repeat(65), `"${"y".repeat(64)}"...`],
    ["a Latin-1 letter, padded to four digits", "\u00e9", '"\\u00e9"'],
    ["DEL", "\x7f", '"\\u007f"'],
  ])("quoteValue: %s", (_n, v, expected) => {
    expect(quoteValue(v)).toBe(expected);
  });

  it.each([
    ["runs of punctuation become one dash", "a!!!b", "a-b"],
    ["trailing punctuation goes", "ab-._", "ab"],
    ["punctuation left at the end by the cut goes", `${"a".repeat(119)}._x`, "a".repeat(119)],
  ])("slugify: %s", (_n, input, expected) => {
    expect(slugify(input)).toBe(expected);
  });

  it("generateTaskId asks for twelve bytes at a time", () => {
    const asked: number[] = [];
    const random: Random = {
      bytes: (n) => {
        asked.push(n);
        return new Uint8Array(n).fill(asked.length === 1 ? 255 : 1);
      },
    };
    expect(generateTaskId("x", random)).toBe("x-bbbbbb");
    expect(asked).toEqual([12, 12]);
  });
});
