import { describe, expect, it } from "vitest";
import {
  commandLine,
  complete,
  completeLast,
  type FormState,
  newForm,
  requestOf,
  sourceNames,
  splitCommand,
  TOGGLES,
  toggles,
} from "./form.ts";

const form = (values: Partial<FormState["values"]>, on: string[] = []): FormState => ({
  ...newForm(values),
  on,
});

describe("the new-run form", () => {
  it.each([
    ["the agent alone is the command", form({ agent: "claude" }), "ariel-spawn --detach --tty -- claude"],
    [
      "a command with the agent as its preset",
      form({ agent: "claude", command: "node fake.mjs 'a b'", name: "n1", source: "api" }),
      "ariel-spawn --detach --tty --name n1 --source api --agent claude -- node fake.mjs 'a b'",
    ],
    [
      "isolate",
      form({ agent: "codex", source: "web" }, ["isolate"]),
      "ariel-spawn --detach --tty --source web --isolate -- codex",
    ],
    [
      "a task implies isolate",
      form({ agent: "claude", task: "t1" }),
      "ariel-spawn --detach --tty --task t1 -- claude",
    ],
    ["keep", form({ agent: "claude" }, ["keep"]), "ariel-spawn --detach --tty --keep -- claude"],
    ["span", form({ agent: "claude" }, ["span"]), "ariel-spawn --detach --tty --span -- claude"],
  ])("%s", (_n, f, want) => expect(commandLine(f)).toBe(want));

  it("makes the request the toggles say", () => {
    expect(requestOf(form({ agent: "claude", task: "t1" }, ["keep"]))).toEqual({
      source: "",
      task: "t1",
      name: "",
      agent: "claude",
      argv: ["claude"],
      isolate: true,
      span: false,
      keep: true,
      sandbox: false,
    });
    expect(requestOf(form({}))).toEqual({ error: "name an agent or a command to run" });
  });

  it("has a row per flag, sandbox the last", () => {
    expect(toggles().map((t) => t.id)).toEqual(["isolate", "keep", "span", "sandbox"]);
    expect(commandLine(form({ agent: "claude" }, ["sandbox"]))).toBe(
      "ariel-spawn --detach --tty --sandbox -- claude",
    );
    expect(TOGGLES.every((t) => t.flag.startsWith("--"))).toBe(true);
  });

  it.each([
    ["words", "npm test", ["npm", "test"]],
    ["quotes keep spaces", `claude -p 'fix it' "and \\"this\\""`, ["claude", "-p", "fix it", 'and "this"']],
    ["nothing", "   ", []],
  ])("splitCommand: %s", (_n, line, want) => expect(splitCommand(line)).toEqual(want));

  it.each([
    ["one", "api", ["api"]],
    ["spaces and commas", " api, web  cli,", ["api", "web", "cli"]],
    ["none", "  ", []],
  ])("sourceNames: %s", (_n, field, want) => expect(sourceNames(field)).toEqual(want));

  it.each([
    ["the last word", "api w", "api web"],
    ["after a comma", "api,w", "api,web"],
    ["the first", "a", "api"],
    ["nothing to complete after a space", "api ", "api "],
  ])("completeLast: %s", (_n, text, want) => expect(completeLast(text, ["api", "web"])).toBe(want));

  it("several sources are one --source each on the command line", () => {
    expect(commandLine(form({ agent: "claude", source: "api web", task: "login" }, ["span"]))).toBe(
      "ariel-spawn --detach --tty --source api --source web --span --task login -- claude",
    );
  });

  it.each([
    ["one name", "al", ["alpha", "beta"], "alpha"],
    ["a shared start", "a", ["api", "app"], "ap"],
    ["nothing starts so", "z", ["api"], "z"],
    ["already whole", "api", ["api", "app"], "api"],
  ])("complete: %s", (_n, text, names, want) => expect(complete(text, names)).toBe(want));
});
