import { describe, expect, it } from "vitest";
import { userStateDir, workspacesDir } from "./state_home.ts";

describe("userStateDir", () => {
  it.each([
    ["ARIEL_STATE_HOME wins", { ARIEL_STATE_HOME: "/s", XDG_STATE_HOME: "/x", HOME: "/h" }, "/s"],
    ["a relative ARIEL_STATE_HOME is from the cwd", { ARIEL_STATE_HOME: "st", HOME: "/h" }, "/cwd/st"],
    ["an empty ARIEL_STATE_HOME is unset", { ARIEL_STATE_HOME: "", XDG_STATE_HOME: "/x" }, "/x/ariel"],
    ["XDG_STATE_HOME/ariel", { XDG_STATE_HOME: "/x", HOME: "/h" }, "/x/ariel"],
    ["a relative XDG_STATE_HOME is ignored", { XDG_STATE_HOME: "x", HOME: "/h" }, "/h/.local/state/ariel"],
    ["~/.local/state/ariel", { HOME: "/h" }, "/h/.local/state/ariel"],
    ["none without HOME", {}, null],
    ["none with a relative HOME", { HOME: "h" }, null],
  ])("%s", (_name, env, dir) => {
    expect(userStateDir(env, "/cwd")).toBe(dir);
  });

  it("workspacesDir", () => {
    expect(workspacesDir("/h/.local/state/ariel")).toBe("/h/.local/state/ariel/workspaces");
  });
});
