/**
 * ownerOf: who a new task (and every lease taken for one) is recorded as. `ARIEL_OWNER` when set
 * and not empty, else the account's user name at the host; `USER` (then "unknown") only when the
 * account cannot be looked up. The look-up failing is made certain by a mocked `userInfo`.
 */
import type * as os from "node:os";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Ports } from "../../ports.ts";
import { faultyPorts } from "./_fixture.ts";

const account = vi.hoisted(() => ({ fails: false }));
vi.mock("node:os", async (original) => {
  const real = await original<typeof os>();
  const userInfo = ((options?: os.UserInfoOptionsWithStringEncoding) => {
    if (account.fails) {
      throw Object.assign(new Error("uv_os_get_passwd returned ENOENT (no such file or directory)"), {
        code: "ERR_SYSTEM_ERROR",
      });
    }
    return real.userInfo(options);
  }) as typeof os.userInfo;
  return { ...real, userInfo, default: { ...real, userInfo } };
});

const { hostname, userInfo } = await import("node:os");
const { ownerOf } = await import("./owner.ts");

afterEach(() => {
  account.fails = false;
});

/** Host ports whose environment is exactly `env`. */
const withEnv = (env: Record<string, string | undefined>): Ports => ({ ...faultyPorts(), env });

describe("ownerOf: ARIEL_OWNER, else the account at the host", () => {
  const me = () => `${userInfo().username}@${hostname()}`;

  it.each<[string, Record<string, string | undefined>, string]>([
    ["ARIEL_OWNER set", { ARIEL_OWNER: "ci-runner-7", USER: "bob" }, "ci-runner-7"],
    ["ARIEL_OWNER with an @ of its own", { ARIEL_OWNER: "alice@laptop" }, "alice@laptop"],
  ])("%s: that owner, as it is", (_name, env, owner) => {
    expect(ownerOf(withEnv(env))).toBe(owner);
  });

  it.each<[string, Record<string, string | undefined>]>([
    ["no ARIEL_OWNER", {}],
    ["ARIEL_OWNER empty", { ARIEL_OWNER: "" }],
    ["USER naming someone else", { USER: "not-the-account-user" }],
  ])("%s: the account's user name at the host, never USER", (_name, env) => {
    expect(userInfo().username).not.toBe("not-the-account-user");
    expect(ownerOf(withEnv(env))).toBe(me());
  });

  it.each<[string, Record<string, string | undefined>, string]>([
    ["USER set", { USER: "bob" }, "bob"],
    ["no USER", {}, "unknown"],
    ["ARIEL_OWNER empty, no USER", { ARIEL_OWNER: "" }, "unknown"],
  ])("the account cannot be looked up, %s: USER, else 'unknown', at the host", (_name, env, user) => {
    account.fails = true;
    expect(ownerOf(withEnv(env))).toBe(`${user}@${hostname()}`);
  });

  it("the account cannot be looked up, ARIEL_OWNER set: ARIEL_OWNER", () => {
    account.fails = true;
    expect(ownerOf(withEnv({ ARIEL_OWNER: "ci-runner-7" }))).toBe("ci-runner-7");
  });
});
