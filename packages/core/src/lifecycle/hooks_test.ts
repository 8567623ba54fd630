import { describe, expect, it } from "vitest";
import { eachMaps } from "../testing/cases.ts";
import { HOOK_EVENTS, isHookEvent } from "./events.ts";
import { describeHook, hasHooks, hookArgv, hookSteps, hooksDigest } from "./hooks.ts";

describe("hook events", () => {
  it("are the five of the lifecycle, in the order of a task's life", () => {
    expect(HOOK_EVENTS).toEqual(["post-create", "pre-remove", "post-restore", "pre-land", "post-land"]);
  });
  eachMaps(
    isHookEvent,
    [
      ["post-create", true],
      ["pre-land", true],
      ["post-merge", false],
      ["", false],
      ["POST-CREATE", false],
    ],
    "isHookEvent(%j) is %j",
  );
});

describe("hooks as data", () => {
  it.each<[string, string | string[], string[], string]>([
    ["a string runs through sh -c", "npm ci && make", ["sh", "-c", "npm ci && make"], "npm ci && make"],
    ["an argv runs directly", ["make", "setup"], ["make", "setup"], '["make","setup"]'],
    ["an argv with spaces stays whole", ["echo", "a b"], ["echo", "a b"], '["echo","a b"]'],
  ])("%s", (_name, hook, argv, described) => {
    expect(hookArgv(hook)).toEqual(argv);
    expect(describeHook(hook)).toBe(described);
  });

  it("digests pinned: sha256 of the hooks as JSON, events in their fixed order", async () => {
    // sha256('{"post-create":"npm ci"}')
    expect(await hooksDigest({ "post-create": "npm ci" })).toBe(
      "ff410a0b5b84efaf6b08eb71dbf5ba8baddaf8a64f486ff84b581a623aafd82e",
    );
    const a = await hooksDigest({ "pre-remove": ["make", "stop"], "post-create": "npm ci" });
    const b = await hooksDigest({ "post-create": "npm ci", "pre-remove": ["make", "stop"] });
    expect(a).toBe(b);
    expect(a).not.toBe(await hooksDigest({ "post-create": "npm ci ", "pre-remove": ["make", "stop"] }));
    expect(a).not.toBe(await hooksDigest({ "post-create": "npm ci" }));
    expect(await hooksDigest({})).toBe("44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a");
  });

  eachMaps(
    hasHooks,
    [
      [undefined, false],
      [{}, false],
      [{ "post-land": "x" }, true],
    ],
    "hasHooks(%j) is %j",
  );
});

describe("hookSteps: the one rule of which hooks run", () => {
  const set = (file: string, trusted: boolean, hooks: Record<string, string>) => ({
    origin: trusted ? ("workspace" as const) : ("repository" as const),
    file,
    hooks,
    sha256: "x",
    trusted,
  });
  it("keeps the sets' order, leaves out sets without the event, marks an untrusted one skipped", () => {
    const repo = set("/ws/api/ariel.config.json", false, { "post-create": "make" });
    const mine = set("/ws/ariel.config.json", true, { "post-create": "npm ci", "pre-remove": "stop" });
    expect(hookSteps([repo, mine], "post-create")).toEqual([
      { set: repo, hook: "make", runs: false },
      { set: mine, hook: "npm ci", runs: true },
    ]);
    expect(hookSteps([repo, mine], "pre-remove")).toEqual([{ set: mine, hook: "stop", runs: true }]);
    expect(hookSteps([repo, mine], "post-land")).toEqual([]);
  });
});
