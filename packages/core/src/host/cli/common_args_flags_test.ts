import { describe, expect, it } from "vitest";
import { ArielError } from "../../errors.ts";
import { checkDryRunFlags, DRY_RUN_ARGS, dryRunExit, JSON_ARG, WORKSPACE_ROOT_ARG } from "./common_args.ts";

function thrown(f: () => void): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe("checkDryRunFlags", () => {
  it("refuses --detailed-exitcode without --dry-run: ERR_USAGE, exit 64", () => {
    const e = thrown(() => checkDryRunFlags({ "detailed-exitcode": true }));
    expect(e).toBeInstanceOf(ArielError);
    expect((e as ArielError).code).toBe("ERR_USAGE");
    expect((e as ArielError).exit).toBe(64);
    expect((e as ArielError).message).toBe("--detailed-exitcode needs --dry-run");
  });

  it("refuses it when --dry-run is anything but true", () => {
    for (const dry of [false, undefined, "true", 1]) {
      const e = thrown(() => checkDryRunFlags({ "detailed-exitcode": true, "dry-run": dry }));
      expect((e as ArielError).code).toBe("ERR_USAGE");
    }
  });

  it("takes both together, either alone without --detailed-exitcode, and neither", () => {
    expect(thrown(() => checkDryRunFlags({ "detailed-exitcode": true, "dry-run": true }))).toBeUndefined();
    expect(thrown(() => checkDryRunFlags({ "dry-run": true }))).toBeUndefined();
    expect(thrown(() => checkDryRunFlags({ "detailed-exitcode": false }))).toBeUndefined();
    expect(thrown(() => checkDryRunFlags({ "detailed-exitcode": "true" }))).toBeUndefined();
    expect(thrown(() => checkDryRunFlags({}))).toBeUndefined();
  });
});

describe("dryRunExit", () => {
  it("is 2 only with --detailed-exitcode and something to do", () => {
    expect(dryRunExit({ "dry-run": true, "detailed-exitcode": true }, 1)).toBe(2);
    expect(dryRunExit({ "dry-run": true, "detailed-exitcode": true }, 3)).toBe(2);
  });

  it("is 0 with nothing to do, or without --detailed-exitcode", () => {
    expect(dryRunExit({ "dry-run": true, "detailed-exitcode": true }, 0)).toBe(0);
    expect(dryRunExit({ "dry-run": true }, 3)).toBe(0);
    expect(dryRunExit({ "dry-run": true, "detailed-exitcode": false }, 3)).toBe(0);
    expect(dryRunExit({}, 1)).toBe(0);
  });
});

describe("the shared flag definitions", () => {
  it("spell -C / --repo-root, --json, -n and --detailed-exitcode as the docs do", () => {
    expect(WORKSPACE_ROOT_ARG["workspace-root"]).toMatchObject({
      type: "string",
      alias: ["C", "repo-root"],
      valueHint: "DIR",
    });
    expect(JSON_ARG.json.type).toBe("boolean");
    expect(DRY_RUN_ARGS["dry-run"]).toMatchObject({ type: "boolean", alias: "n" });
    expect(DRY_RUN_ARGS["detailed-exitcode"].type).toBe("boolean");
  });
});
