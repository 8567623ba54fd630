import { describe, expect, it } from "vitest";
import { defineCommand } from "./define.ts";
import { renderHelp, renderHelpReference } from "./help.ts";

describe("renderHelp", () => {
  it("pins the help of a command: usage, arguments, flags with aliases, examples", () => {
    const cmd = defineCommand({
      meta: {
        name: "logs",
        description: "print a run's output",
        usage: "RUN [OPTIONS]",
        examples: [
          ["ariel-runs logs r1", "the output so far"],
          ["ariel-runs logs r1 -f", "follow it"],
        ],
      },
      args: {
        run: { type: "positional", valueHint: "RUN", description: "a run id or name" },
        "workspace-root": {
          type: "string",
          alias: ["C", "repo-root"],
          valueHint: "DIR",
          description: "root",
        },
        follow: { type: "boolean", alias: "f", description: "keep printing" },
      },
      run: () => 0,
    });
    expect(renderHelp(cmd, "ariel-runs logs", "1.2.3")).toBe(
      [
        "ariel-runs logs 1.2.3: print a run's output",
        "",
        "Usage: ariel-runs logs RUN [OPTIONS]",
        "",
        "Arguments:",
        "  RUN  a run id or name",
        "",
        "Options:",
        "  -C, --workspace-root, --repo-root DIR  root",
        "  -f, --follow                           keep printing",
        "  -h, --help                             show this help",
        "  -V, --version                          print the version",
        "",
        "Examples:",
        "  # the output so far",
        "  ariel-runs logs r1",
        "  # follow it",
        "  ariel-runs logs r1 -f",
        "",
        "Exit statuses and record rules: ariel-runs help contract",
        "",
      ].join("\n"),
    );
  });
});

describe("renderHelpReference", () => {
  const leaf = (name: string, description: string) =>
    defineCommand({ meta: { name, description }, args: {}, run: () => 0 });

  it("a group: its page, then each sub-command's in order, loading the lazy ones; no version", async () => {
    const group = defineCommand({
      meta: { name: "tool", description: "does things" },
      subCommands: { one: leaf("one", "the first"), two: async () => leaf("two", "the second") },
    });
    const text = await renderHelpReference(group);
    expect(text.split("\n").slice(0, 3)).toEqual([
      "# tool: every help page",
      "",
      "What `tool --help` and `tool COMMAND --help` print, the first line without the version. Generated from the commands by `npm run schema`; a test fails when it differs.",
    ]);
    const pages = text.split(/^## /m).slice(1);
    expect(pages.map((p) => p.split("\n")[0])).toEqual(["tool", "tool one", "tool two"]);
    expect(pages[0]).toBe(
      `tool\n\n\`\`\`text\n${renderHelp(group, "tool", "", [
        ["one", "the first"],
        ["two", "the second"],
      ])}\`\`\`\n\n`,
    );
    expect(pages[2]).toBe(
      "tool two\n\n```text\ntool two: the second\n\nUsage: tool two [OPTIONS]\n\nOptions:\n  -h, --help     show this help\n  -V, --version  print the version\n\nExit statuses and record rules: tool help contract\n```\n",
    );
  });

  it("a command without sub-commands: one page, and no COMMAND --help in the intro", async () => {
    const text = await renderHelpReference(leaf("solo", "alone"));
    expect(text).toContain("What `solo --help` prints, the first line");
    expect(text.match(/^## /gm)).toEqual(["## "]);
    expect(text).toContain("```text\nsolo: alone\n");
  });
});
