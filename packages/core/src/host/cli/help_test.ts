import { describe, expect, it } from "vitest";
import { defineCommand } from "./define.ts";
import { renderHelp } from "./help.ts";

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
