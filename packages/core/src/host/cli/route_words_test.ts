import { describe, expect, it } from "vitest";
import type { ArielError } from "../../errors.ts";
import { defineCommand } from "./define.ts";
import { listCommands, routeCommand } from "./route.ts";

const list = defineCommand({
  meta: { name: "list", description: "list things" },
  args: { json: { type: "boolean", description: "json" } },
  run: () => 0,
});

const group = defineCommand({
  meta: { name: "ariel-x", description: "x" },
  args: {
    "workspace-root": { type: "string", alias: ["C", "repo-root"], description: "root" },
    quiet: { type: "boolean", alias: "q", description: "quiet" },
  },
  subCommands: {
    list,
    add: async () => defineCommand({ meta: { name: "add", description: "add a thing" }, run: () => 5 }),
  },
});

const single = defineCommand({
  meta: { name: "ariel-s", description: "s" },
  args: { name: { type: "string", description: "n" } },
  run: () => 0,
});

async function usage(p: Promise<unknown>): Promise<ArielError> {
  try {
    await p;
  } catch (e) {
    return e as ArielError;
  }
  throw new Error("routed");
}

describe("routeCommand", () => {
  it("exactly `help contract` is the contract, in a group and a single command", async () => {
    expect(await routeCommand(group, ["help", "contract"])).toEqual({ kind: "contract" });
    expect(await routeCommand(single, ["help", "contract"])).toEqual({ kind: "contract" });
    // not with anything more, nor in another order
    expect((await usage(routeCommand(group, ["help", "contract", "x"]))).message).toBe(
      'unknown command "contract"',
    );
    expect((await routeCommand(single, ["contract", "help"])).kind).toBe("command");
    expect((await routeCommand(single, ["help", "other"])).kind).toBe("command");
  });

  it("a single command: `help` alone is its help, anything else runs it with argv as given", async () => {
    expect(await routeCommand(single, ["help"])).toEqual({
      kind: "help",
      def: single,
      path: "ariel-s",
      group: false,
    });
    expect(await routeCommand(single, ["help", "--name", "x"])).toEqual({
      kind: "command",
      def: single,
      path: "ariel-s",
      argv: ["help", "--name", "x"],
    });
    expect(await routeCommand(single, [])).toEqual({
      kind: "command",
      def: single,
      path: "ariel-s",
      argv: [],
    });
  });

  it("finds the sub-command after the group's flags and their values, in every spelling", async () => {
    for (const argv of [
      ["-C", "/ws", "list", "--json"],
      ["--workspace-root", "/ws", "list", "--json"],
      ["--repo-root", "/ws", "list", "--json"],
      ["-q", "list", "--json"],
    ]) {
      const r = await routeCommand(group, argv);
      expect(r).toMatchObject({ kind: "command", path: "ariel-x list" });
      expect((r as unknown as { argv: string[] }).argv).toEqual(argv.filter((a) => a !== "list"));
    }
  });

  it("a flag's value is not taken for the sub-command, but a boolean flag's neighbour is", async () => {
    const r = await routeCommand(group, ["-C", "list", "add"]);
    expect(r).toMatchObject({ kind: "command", path: "ariel-x add", argv: ["-C", "list"] });
    const q = await routeCommand(group, ["--quiet", "add"]);
    expect(q).toMatchObject({ kind: "command", path: "ariel-x add", argv: ["--quiet"] });
  });

  it("a lone `-` is a word; nothing after `--` is a sub-command", async () => {
    expect((await usage(routeCommand(group, ["-"]))).message).toBe('unknown command "-"');
    expect(await routeCommand(group, ["--", "list"])).toEqual({ kind: "group", argv: ["--", "list"] });
    expect(await routeCommand(group, ["-q"])).toEqual({ kind: "group", argv: ["-q"] });
    expect(await routeCommand(group, [])).toEqual({ kind: "group", argv: [] });
  });

  it("the group's global flags are the sub-command's too; a lazy sub-command is loaded", async () => {
    const r = (await routeCommand(group, ["add"])) as {
      def: { args: Record<string, unknown>; meta: { name: string } };
    };
    expect(r.def.meta.name).toBe("add");
    expect(Object.keys(r.def.args).sort()).toEqual(["quiet", "workspace-root"]);
    const l = (await routeCommand(group, ["list"])) as { def: { args: Record<string, unknown> } };
    expect(Object.keys(l.def.args).sort()).toEqual(["json", "quiet", "workspace-root"]);
  });

  it("an unknown sub-command: ERR_USAGE with a did-you-mean and the help command", async () => {
    const e = await usage(routeCommand(group, ["lsit"]));
    expect([e.code, e.message]).toEqual(["ERR_USAGE", 'unknown command "lsit"']);
    expect(e.hint).toBe('did you mean "list"? run ariel-x help to see the commands');
    const far = await usage(routeCommand(group, ["zzzzzzzz"]));
    expect(far.hint).toBe("run ariel-x help to see the commands");
  });

  it("what comes before the sub-command must be the group's own flags", async () => {
    const e = await usage(routeCommand(group, ["--exclude", "x", "list"]));
    expect(e.code).toBe("ERR_USAGE");
  });

  it("help, help COMMAND, and help after flags", async () => {
    expect(await routeCommand(group, ["help"])).toEqual({
      kind: "help",
      def: group,
      path: "ariel-x",
      group: true,
    });
    const h = await routeCommand(group, ["help", "list"]);
    expect(h).toMatchObject({ kind: "help", path: "ariel-x list", group: false });
    expect((h as { def: { meta: { name: string } } }).def.meta.name).toBe("list");
    expect(await routeCommand(group, ["-q", "help", "--json", "add"])).toMatchObject({
      kind: "help",
      path: "ariel-x add",
      group: false,
    });
    expect(await routeCommand(group, ["help", "-q"])).toEqual({
      kind: "help",
      def: group,
      path: "ariel-x",
      group: true,
    });
    expect((await usage(routeCommand(group, ["help", "nope"]))).message).toBe('unknown command "nope"');
  });

  it("a word ending in a dash is a sub-command name to help with, not a flag", async () => {
    expect((await usage(routeCommand(group, ["help", "list-"]))).message).toBe('unknown command "list-"');
  });

  it("a name inherited from Object is not a sub-command", async () => {
    expect((await usage(routeCommand(group, ["toString"]))).message).toBe('unknown command "toString"');
  });
});

describe("listCommands", () => {
  it("every sub-command with its description, lazy ones loaded", async () => {
    expect(await listCommands(group)).toEqual([
      ["list", "list things"],
      ["add", "add a thing"],
    ]);
    expect(await listCommands(single)).toEqual([]);
  });
});
