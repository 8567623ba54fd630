/**
 * More of form.ts: the whole request each toggle makes on its own, the fields trimmed, a task
 * alone implying isolate, a blank command falling back to the agent, an unmakeable form's empty
 * command line, and completing after a separator.
 */
import { describe, expect, it } from "vitest";
import { commandLine, completeLast, type FormState, type NewRunRequest, newForm, requestOf } from "./form.ts";

const form = (values: Partial<FormState["values"]>, on: string[] = []): FormState => ({
  ...newForm(values),
  on,
});

/** The request with nothing on, for the agent `claude`. */
const plainReq: NewRunRequest = {
  source: "",
  task: "",
  name: "",
  agent: "claude",
  argv: ["claude"],
  isolate: false,
  span: false,
  keep: false,
  sandbox: false,
};

describe("newForm", () => {
  // Pinned: the whole initial state, with and without defaults.
  it("starts empty on the first row, nothing on, no error", () => {
    expect(newForm()).toEqual({
      values: { source: "", task: "", agent: "", command: "", name: "" },
      on: [],
      row: 0,
      error: null,
    });
    expect(newForm({ agent: "claude", source: "api" })).toEqual({
      values: { source: "api", task: "", agent: "claude", command: "", name: "" },
      on: [],
      row: 0,
      error: null,
    });
  });
});

describe("requestOf: each toggle alone, and a task alone", () => {
  // Pinned: the whole request, so a flag a toggle should set (or leave) is checked each time.
  it.each<[string, FormState, Partial<NewRunRequest>]>([
    ["nothing on", form({ agent: "claude" }), {}],
    ["isolate", form({ agent: "claude" }, ["isolate"]), { isolate: true }],
    ["keep isolates", form({ agent: "claude" }, ["keep"]), { isolate: true, keep: true }],
    ["span isolates", form({ agent: "claude" }, ["span"]), { isolate: true, span: true }],
    ["sandbox does not isolate", form({ agent: "claude" }, ["sandbox"]), { sandbox: true }],
    ["a task alone isolates", form({ agent: "claude", task: "t1" }), { task: "t1", isolate: true }],
    [
      "a task with sandbox isolates",
      form({ agent: "claude", task: "t1" }, ["sandbox"]),
      { task: "t1", isolate: true, sandbox: true },
    ],
    ["an unknown toggle id changes nothing", form({ agent: "claude" }, ["nope"]), {}],
  ])("%s", (_n, f, over) => expect(requestOf(f)).toEqual({ ...plainReq, ...over }));
});

describe("requestOf: the fields as typed", () => {
  // Pinned: every field is trimmed; a blank command means the agent is the command.
  it("trims every field", () => {
    expect(
      requestOf(
        form({
          agent: " claude ",
          source: "  api web ",
          task: " t1 ",
          name: " n1  ",
          command: " npm  test ",
        }),
      ),
    ).toEqual({
      ...plainReq,
      source: "api web",
      task: "t1",
      name: "n1",
      argv: ["npm", "test"],
      isolate: true,
    });
  });

  it("a command of only spaces is no command: the agent runs", () => {
    expect(requestOf(form({ agent: "codex", command: "   " }))).toEqual({
      ...plainReq,
      agent: "codex",
      argv: ["codex"],
    });
    expect(commandLine(form({ agent: "codex", command: "   " }))).toBe("ariel-spawn --detach --tty -- codex");
  });

  it("a form that makes no request has no command line", () => {
    expect(commandLine(newForm())).toBe("");
    expect(commandLine(form({ command: "  ", agent: " " }))).toBe("");
  });
});

describe("completeLast: nothing after the separator", () => {
  // Pinned: with nothing typed after a space or comma the text stays as it is, even when the
  // names share a start.
  it.each([
    ["after a space", "api ", "api "],
    ["after a comma", "api,", "api,"],
    ["empty", "", ""],
    ["a word after them is completed to the shared start", "x a", "x ap"],
  ])("%s", (_n, text, want) => expect(completeLast(text, ["api", "app"])).toBe(want));
});
