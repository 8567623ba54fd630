import { ArielError, quoteValue } from "@ariel/core";
import type { Context } from "hono";
import { dashboardFile } from "./assets.ts";

const CONTENT_TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
};

/** The dashboard's other files (besides `/`). */
export const DASHBOARD_ROUTES = ["app.js", "app.css", "favicon.svg", "xterm.js", "xterm.css"] as const;

/**
 * A handler that answers with one of the dashboard's files (held in memory, never a path on
 * disk), passed through `edit` when given.
 */
export function staticFile(
  name: string,
  edit: (text: string) => string = (t) => t,
): (c: Context) => Response {
  return (c) => {
    const file = dashboardFile(name);
    const body = file === undefined ? undefined : edit(file);
    if (body === undefined) throw new ArielError("ERR_NOINPUT", `no file ${quoteValue(name)}`);
    const type = CONTENT_TYPES[name.slice(name.lastIndexOf(".") + 1)] ?? "text/plain";
    return c.body(body, 200, { "content-type": type });
  };
}
