import * as fs from "node:fs";
import { Hono } from "hono";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DASHBOARD_FILES, dashboardFile, withoutSourceMap } from "./assets.ts";
import { staticFile } from "./static.ts";

// The dashboard's files (assets.ts): which names are served, read once each, from the source
// tree or the xterm package, without a source-map comment; and staticFile's answer for a name
// that is no file (static.ts).

vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs")>();
  return { ...real, readFileSync: vi.fn(real.readFileSync) };
});

afterEach(() => vi.mocked(fs.readFileSync).mockClear());

/** A file of the source tree (or node_modules), read here without the mock's bookkeeping. */
const read = (path: string) =>
  vi.mocked(fs.readFileSync).getMockImplementation()!(new URL(path, import.meta.url), "utf8") as string;

describe("withoutSourceMap", () => {
  it.each([
    ["a js map comment at the end", "x();\n//# sourceMappingURL=x.js.map", "x();\n"],
    ["the old //@ form", "x();\n//@ sourceMappingURL=x.js.map", "x();\n"],
    ["a css map comment, then newlines", "a{}\n/*# sourceMappingURL=x.css.map */\n\n", "a{}\n"],
    ["a map comment and one space", "x();\n//# sourceMappingURL=m \t", "x();\n"],
    ["a map comment in the middle is kept", "x();\n//# sourceMappingURL=x.map\ny();\n", null],
    ["no map comment", "x();\n// just a comment\n", null],
    ["a map comment not on its own line", "x(); //# sourceMappingURL=x.map", null],
    ["another kind of comment", "x();\n//! sourceMappingURL=x.map", null],
    ["no newline before it", "//# sourceMappingURL=x.map", null],
  ])("%s", (_, text, expected) => {
    expect(withoutSourceMap(text)).toBe(expected ?? text);
  });
});

describe("dashboardFile", () => {
  it.each(["nope.js", "app.ts", "../dashboard/app.js", "index.htm", ""])(
    "%j is no dashboard file: undefined, nothing read",
    (name) => {
      expect(dashboardFile(name)).toBeUndefined();
      expect(fs.readFileSync).not.toHaveBeenCalled();
    },
  );

  it.each(["index.html", "app.js", "app.css", "favicon.svg"])("%s: the source tree's file", (name) => {
    expect(dashboardFile(name)).toBe(withoutSourceMap(read(`../dashboard/${name}`)));
  });

  it.each([
    ["xterm.js", "lib/xterm.js"],
    ["xterm.css", "css/xterm.css"],
  ])("%s: the xterm package's %s, its map comment gone", (name, path) => {
    const text = read(`../../node_modules/@xterm/xterm/${path}`);
    const served = dashboardFile(name)!;
    expect(served).toBe(withoutSourceMap(text));
    expect([served.length > 1000, served.includes("sourceMappingURL")]).toEqual([true, false]);
  });

  it("each file is read once, then served from memory", () => {
    for (const name of DASHBOARD_FILES) dashboardFile(name);
    vi.mocked(fs.readFileSync).mockClear();
    for (const name of DASHBOARD_FILES) expect(dashboardFile(name)).toBeTypeOf("string");
    expect(fs.readFileSync).not.toHaveBeenCalled();
  });
});

/** An app serving `handler` at /f, errors as `status code message`. */
function appOf(handler: ReturnType<typeof staticFile>): Hono {
  const app = new Hono();
  app.get("/f", handler);
  app.onError((e, c) => c.text(`500 ${(e as { code?: string }).code} ${e.message}`, 500));
  return app;
}

describe("staticFile", () => {
  it("a dashboard file: 200, its type, the text passed through edit", async () => {
    const res = await appOf(staticFile("app.css", (t) => `/* x */${t}`)).request("/f");
    expect([res.status, res.headers.get("content-type"), await res.text()]).toEqual([
      200,
      "text/css; charset=utf-8",
      `/* x */${dashboardFile("app.css")}`,
    ]);
  });

  it.each([
    ["without edit", undefined],
    ["with an edit (never called)", (t: string) => t.toUpperCase()],
  ])("a name that is no dashboard file throws ERR_NOINPUT, %s", async (_, edit) => {
    const res = await appOf(staticFile("nope.txt", edit)).request("/f");
    expect([res.status, await res.text()]).toEqual([500, '500 ERR_NOINPUT no file "nope.txt"']);
  });
});
